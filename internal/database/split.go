package database

import (
	"regexp"
	"strings"
)

// statement is one statement of a script and the line it starts on.
type statement struct {
	SQL  string
	Line int // 1-based: the line of its first character that is not blank or a comment
}

// dialect says which of a server's lexical forms a script may use, where a
// ';' does not end a statement.
type dialect struct {
	dollarQuotes       bool // PostgreSQL's $$...$$ and $tag$...$tag$ bodies
	nestedComments     bool // PostgreSQL's /* /* */ */
	hashComments       bool // MySQL's # to the end of the line
	backslashEscapes   bool // MySQL's \' inside '' and "" strings (PostgreSQL: only in E'' strings)
	backquotes         bool // MySQL's `identifiers`
	executableComments bool // MySQL's /*! ... */, which the server runs
	dashNeedsBlank     bool // MySQL's -- starts a comment only before a blank
}

// splitStatements splits a script into its statements, as d reads it: at
// each ';' outside quotes, quoted identifiers, comments and (PostgreSQL)
// dollar-quoted bodies, so that a function's body is one statement with
// the CREATE that holds it. Statements made of nothing but blanks and
// comments are left out. MySQL's client commands (DELIMITER) are not SQL
// and are not understood.
func splitStatements(script string, d dialect) []statement {
	s := splitter{src: script, d: d, line: 1, start: -1}
	s.run()
	return s.out
}

// splitter walks a script, byte by byte, keeping the line it is on and
// where the statement in progress began.
type splitter struct {
	src       string
	d         dialect
	i, line   int
	start     int // the statement's first byte; -1 between statements
	startLine int
	out       []statement
}

// run splits the whole script.
func (s *splitter) run() {
	for s.i < len(s.src) {
		s.step()
	}
	s.end()
}

// step reads what starts at s.i: a blank, a comment, a ';' or a token.
func (s *splitter) step() {
	c := s.src[s.i]
	switch {
	case c == '\n':
		s.line++
		s.i++
	case c == ' ' || c == '\t' || c == '\r' || c == '\f':
		s.i++
	case c == ';':
		s.end()
		s.i++
	case s.lineComment():
		s.skipTo("\n", false)
	case s.at("/*") && !s.executable():
		s.skipComment()
	default:
		s.mark()
		s.token()
	}
}

// at reports whether the script continues with prefix at s.i.
func (s *splitter) at(prefix string) bool { return strings.HasPrefix(s.src[s.i:], prefix) }

// lineComment reports whether a comment to the end of the line starts at s.i.
func (s *splitter) lineComment() bool {
	switch {
	case s.src[s.i] == '#':
		return s.d.hashComments
	case !s.at("--"):
		return false
	case !s.d.dashNeedsBlank || s.i+2 == len(s.src):
		return true
	}
	return strings.ContainsRune(" \t\r\n\f", rune(s.src[s.i+2]))
}

// executable reports whether the comment at s.i is one MySQL runs.
func (s *splitter) executable() bool {
	return s.d.executableComments && (s.at("/*!") || s.at("/*M!"))
}

// mark starts a statement at s.i, unless one is in progress.
func (s *splitter) mark() {
	if s.start < 0 {
		s.start, s.startLine = s.i, s.line
	}
}

// end ends the statement in progress, if any, before s.i.
func (s *splitter) end() {
	if s.start < 0 {
		return
	}
	s.out = append(s.out, statement{SQL: strings.TrimSpace(s.src[s.start:s.i]), Line: s.startLine})
	s.start = -1
}

// token skips a quoted string, identifier or body, or one other byte.
func (s *splitter) token() {
	c := s.src[s.i]
	switch {
	case c == '\'':
		s.skipQuoted('\'', s.d.backslashEscapes || s.escapeString())
	case c == '"':
		s.skipQuoted('"', s.d.backslashEscapes)
	case c == '`' && s.d.backquotes:
		s.skipQuoted('`', false)
	case c == '$' && s.d.dollarQuotes:
		s.skipDollarQuoted()
	case s.executable():
		s.skipComment()
	default:
		s.i++
	}
}

// escapeString reports whether the quote at s.i opens a PostgreSQL escape
// string (E'...'), where a backslash escapes.
func (s *splitter) escapeString() bool {
	if s.i == 0 || (s.src[s.i-1] != 'E' && s.src[s.i-1] != 'e') {
		return false
	}
	return s.i == 1 || !isWordByte(s.src[s.i-2])
}

// skipQuoted skips a quoted string or identifier: to its closing quote,
// which doubled is a quote inside it, as is one after a backslash when
// backslash escapes.
func (s *splitter) skipQuoted(quote byte, backslash bool) {
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\\' && backslash && s.i+1 < len(s.src):
			s.advance(2)
		case c == quote && s.i+1 < len(s.src) && s.src[s.i+1] == quote:
			s.advance(2)
		case c == quote:
			s.i++
			return
		default:
			s.advance(1)
		}
	}
}

// dollarTag matches a dollar quote's opening tag.
var dollarTag = regexp.MustCompile(`^\$([A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)?\$`)

// skipDollarQuoted skips a $tag$...$tag$ body, or the '$' of a parameter
// ($1) or of a name (a$b).
func (s *splitter) skipDollarQuoted() {
	tag := dollarTag.FindString(s.src[s.i:])
	if tag == "" || (s.i > 0 && isWordByte(s.src[s.i-1])) {
		s.i++
		return
	}
	s.advance(len(tag))
	s.skipTo(tag, true)
}

// skipComment skips a /* */ comment, nested in PostgreSQL.
func (s *splitter) skipComment() {
	depth := 0
	for s.i < len(s.src) {
		switch {
		case s.at("/*") && (depth == 0 || s.d.nestedComments):
			depth++
			s.advance(2)
		case s.at("*/"):
			depth--
			s.advance(2)
			if depth == 0 {
				return
			}
		default:
			s.advance(1)
		}
	}
}

// skipTo skips to the next end, past it when past is set.
func (s *splitter) skipTo(end string, past bool) {
	n := strings.Index(s.src[s.i:], end)
	if n < 0 {
		n = len(s.src) - s.i
	} else if past {
		n += len(end)
	}
	s.advance(n)
}

// advance moves n bytes on, counting the lines passed.
func (s *splitter) advance(n int) {
	n = min(n, len(s.src)-s.i)
	s.line += strings.Count(s.src[s.i:s.i+n], "\n")
	s.i += n
}

// isWordByte reports whether b may be part of a name.
func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= 0x80 || ('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}
