package database

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/threadbench/threadbench/internal/bench"
)

func TestHostPackage_Missing(t *testing.T) {
	r := recipe{pkg: "postgresql-99", program: "/usr/lib/postgresql/99/bin/postgres"}
	_, err := hostPackage(context.Background(), "PostgreSQL", r)
	if bench.ErrorCode(err) != bench.EUNAVAILABLE {
		t.Fatalf("hostPackage of a missing package = %v, want an EUNAVAILABLE error", err)
	}
	for _, want := range []string{"PostgreSQL", "Debian package postgresql-99", "apt-get install postgresql-99"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestDebPackage(t *testing.T) {
	tests := []struct {
		pkg      debPackage
		upstream string
		source   string
	}{
		{debPackage{"postgresql-15", "15.18-0+deb12u1"}, "15.18", "debian:postgresql-15=15.18-0+deb12u1"},
		{debPackage{"mariadb-server", "1:10.11.19-0+deb12u1"}, "10.11.19", "debian:mariadb-server=1:10.11.19-0+deb12u1"},
		{debPackage{"native", "2.0"}, "2.0", "debian:native=2.0"},
	}
	for _, tt := range tests {
		if got := tt.pkg.upstream(); got != tt.upstream {
			t.Errorf("upstream of %s = %q, want %q", tt.pkg.version, got, tt.upstream)
		}
		if got := tt.pkg.source(); got != tt.source {
			t.Errorf("source of %s = %q, want %q", tt.pkg.version, got, tt.source)
		}
	}
}

// TestImageRef checks that a ref changes with what the image holds and
// with nothing else.
func TestImageRef(t *testing.T) {
	f := flavor{kind: "postgres", image: recipe{repository: "threadbench/postgres", copies: []string{"/a", "/b"}}}
	pkg := debPackage{"postgresql-15", "15.18-0+deb12u1"}
	files := map[string]string{"/x": "one", "/y": "two"}
	ref := imageRef(f, pkg, files)
	if !strings.HasPrefix(ref, "threadbench/postgres:15.18-") || len(ref) != len("threadbench/postgres:15.18-")+8 {
		t.Errorf("ref = %q, want threadbench/postgres:15.18-<8 hex digits>", ref)
	}
	if again := imageRef(f, pkg, map[string]string{"/y": "two", "/x": "one"}); again != ref {
		t.Errorf("the same recipe gave %q, then %q", ref, again)
	}
	fewer, other := f, f
	fewer.image.copies = []string{"/a"}
	other.kind = "mysql"
	changed := map[string]string{
		"package version": imageRef(f, debPackage{"postgresql-15", "15.19-0+deb12u1"}, files),
		"a file":          imageRef(f, pkg, map[string]string{"/x": "one", "/y": "three"}),
		"the copies":      imageRef(fewer, pkg, files),
		"the labels":      imageRef(other, pkg, files),
	}
	for what, other := range changed {
		if other == ref {
			t.Errorf("changing %s left the ref %q", what, ref)
		}
	}
}

func TestSeedStatements(t *testing.T) {
	stmts := seedStatements()
	if len(stmts) != 2 || !strings.HasPrefix(stmts[0], "CREATE TABLE "+bench.DatabaseTable+" (id integer PRIMARY KEY") {
		t.Fatalf("seed = %.80q..., want CREATE TABLE %s, then INSERT", stmts, bench.DatabaseTable)
	}
	insert := stmts[1]
	if n := strings.Count(insert, "'item-"); n != bench.DatabaseRows {
		t.Errorf("INSERT holds %d rows, want %d", n, bench.DatabaseRows)
	}
	for _, row := range []string{"(1, 'item-1', 7)", "(143, 'item-143', 1)", "(1000, 'item-1000', 0)"} {
		if !strings.Contains(insert, row) {
			t.Errorf("INSERT lacks %s", row)
		}
	}
}

func TestFlavors(t *testing.T) {
	for _, kind := range bench.DatabaseKinds {
		f, err := lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Join(f.args("127.0.0.1", 5432), " ")
		for _, want := range []string{"127.0.0.1", "5432", "500"} {
			if !strings.Contains(args, want) {
				t.Errorf("%s's arguments %q lack %q", kind, args, want)
			}
		}
	}
	if _, err := lookup("oracle"); bench.ErrorCode(err) != bench.EINVALID {
		t.Errorf("lookup(oracle) = %v, want an EINVALID error", err)
	}
}

// Every flavor's image makes its template once and copies it at each start:
// the preparing script writes templateDir, the start script copies it into
// dataDir and makes nothing anew.
func TestFlavorScripts(t *testing.T) {
	for _, kind := range bench.DatabaseKinds {
		f, err := lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(f.image.program); err != nil {
			t.Skipf("%s is not installed: %v", f.image.pkg, err)
		}
		files, err := f.image.generate()
		if err != nil {
			t.Fatal(err)
		}
		prep, start := files[prepareScript], files[startScript]
		if !strings.HasPrefix(prep, "#!/bin/sh") || !strings.Contains(prep, templateDir) || strings.Contains(prep, dataDir) {
			t.Errorf("%s's preparing script writes elsewhere than %s:\n%s", kind, templateDir, prep)
		}
		if !strings.Contains(start, "cp -a "+templateDir+"/. "+dataDir+"/") || strings.Contains(start, "initdb") || strings.Contains(start, "--bootstrap") {
			t.Errorf("%s's start script does not only copy %s into %s and run the server:\n%s", kind, templateDir, dataDir, start)
		}
	}
}

// The archive gives the template's directory to the server's user, the
// rest to root.
func TestTarOwners(t *testing.T) {
	rootfs := t.TempDir()
	if err := makeDirs(rootfs); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeTar(&buf, rootfs); err != nil {
		t.Fatal(err)
	}
	owners := map[string]int{}
	tr := tar.NewReader(&buf)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		owners["/"+strings.TrimSuffix(hdr.Name, "/")] = hdr.Uid
	}
	if owners[templateDir] != dbUID || owners[dataDir] != 0 || owners["/tmp"] != 0 {
		t.Errorf("owners %v: want %s owned by %d, the rest by root", owners, templateDir, dbUID)
	}
}
