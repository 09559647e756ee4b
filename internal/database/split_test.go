package database

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	pg, my := postgres.dialect, mariadb.dialect
	tests := []struct {
		name   string
		d      dialect
		script string
		want   []statement
	}{
		{"empty", pg, "", nil},
		{"blanks and comments only", pg, "\n  -- nothing\n/* at all */ ;\n;", nil},
		{"one line each", pg, "CREATE TABLE a (id int);\nINSERT INTO a VALUES (1);\n",
			[]statement{{"CREATE TABLE a (id int)", 1}, {"INSERT INTO a VALUES (1)", 2}}},
		{"the last without a ';'", pg, "SELECT 1;\nSELECT 2",
			[]statement{{"SELECT 1", 1}, {"SELECT 2", 2}}},
		{"two on a line", pg, "SELECT 1; SELECT 2;",
			[]statement{{"SELECT 1", 1}, {"SELECT 2", 1}}},
		{"a statement over lines starts at its first word", pg, "\n\n-- the table\nCREATE TABLE a (\n  id int\n);\nSELECT 1;",
			[]statement{{"CREATE TABLE a (\n  id int\n)", 4}, {"SELECT 1", 7}}},
		{"';' in a string", pg, "INSERT INTO a VALUES ('x;y');\nSELECT 1;",
			[]statement{{"INSERT INTO a VALUES ('x;y')", 1}, {"SELECT 1", 2}}},
		{"doubled quote in a string", pg, "SELECT 'it''s; here';\nSELECT 2;",
			[]statement{{"SELECT 'it''s; here'", 1}, {"SELECT 2", 2}}},
		{"string over lines counts them", pg, "SELECT 'a\nb;\nc';\nSELECT 2;",
			[]statement{{"SELECT 'a\nb;\nc'", 1}, {"SELECT 2", 4}}},
		{"';' in a quoted name", pg, `CREATE TABLE "a;b" (id int); SELECT 2;`,
			[]statement{{`CREATE TABLE "a;b" (id int)`, 1}, {"SELECT 2", 1}}},
		{"';' in comments", pg, "SELECT 1 -- not; the end\n, 2;\nSELECT /* nor; this */ 3;",
			[]statement{{"SELECT 1 -- not; the end\n, 2", 1}, {"SELECT /* nor; this */ 3", 3}}},
		{"nested comment (PostgreSQL)", pg, "/* a /* b; */ c; */ SELECT 1;",
			[]statement{{"SELECT 1", 1}}},
		{"dollar-quoted body", pg, "CREATE FUNCTION f() RETURNS int AS $$\nBEGIN\n  RETURN 1;\nEND;\n$$ LANGUAGE plpgsql;\nSELECT f();",
			[]statement{{"CREATE FUNCTION f() RETURNS int AS $$\nBEGIN\n  RETURN 1;\nEND;\n$$ LANGUAGE plpgsql", 1}, {"SELECT f()", 6}}},
		{"tagged dollar quote holding $$", pg, "DO $body$ BEGIN PERFORM '$$;'; END $body$;\nSELECT 2;",
			[]statement{{"DO $body$ BEGIN PERFORM '$$;'; END $body$", 1}, {"SELECT 2", 2}}},
		{"a parameter is no dollar quote", pg, "PREPARE p AS SELECT $1; EXECUTE p(1);",
			[]statement{{"PREPARE p AS SELECT $1", 1}, {"EXECUTE p(1)", 1}}},
		{"backslash is plain in a PostgreSQL string", pg, `SELECT 'a\'; SELECT 2;`,
			[]statement{{`SELECT 'a\'`, 1}, {"SELECT 2", 1}}},
		{"backslash escapes in an E string", pg, `SELECT E'a\'; b'; SELECT 2;`,
			[]statement{{`SELECT E'a\'; b'`, 1}, {"SELECT 2", 1}}},
		{"# is an operator in PostgreSQL", pg, "SELECT 5 # 3;\nSELECT 2;",
			[]statement{{"SELECT 5 # 3", 1}, {"SELECT 2", 2}}},
		{"# comment (MySQL)", my, "# a; comment\nSELECT 1;",
			[]statement{{"SELECT 1", 2}}},
		{"backslash escapes in MySQL", my, `INSERT INTO a VALUES ('it\'s; here', "a\";b");` + "\nSELECT 2;",
			[]statement{{`INSERT INTO a VALUES ('it\'s; here', "a\";b")`, 1}, {"SELECT 2", 2}}},
		{"backquoted name (MySQL)", my, "CREATE TABLE `a;b` (id int);\nSELECT 2;",
			[]statement{{"CREATE TABLE `a;b` (id int)", 1}, {"SELECT 2", 2}}},
		{"-- needs a blank in MySQL", my, "SELECT 1--1;\n-- a; comment\nSELECT 2;",
			[]statement{{"SELECT 1--1", 1}, {"SELECT 2", 3}}},
		{"executable comment is a statement (MySQL)", my, "/*!40101 SET NAMES utf8 */;\n/* plain; */\nSELECT 1;",
			[]statement{{"/*!40101 SET NAMES utf8 */", 1}, {"SELECT 1", 3}}},
		{"dollars are plain in MySQL", my, "SELECT '$$'; SELECT $$;",
			[]statement{{"SELECT '$$'", 1}, {"SELECT $$", 1}}},
		{"unterminated string runs to the end", pg, "SELECT 1;\nSELECT 'oops;\nSELECT 3;",
			[]statement{{"SELECT 1", 1}, {"SELECT 'oops;\nSELECT 3;", 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitStatements(tt.script, tt.d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitStatements(%q) =\n%+v\nwant\n%+v", tt.script, got, tt.want)
			}
		})
	}
}
