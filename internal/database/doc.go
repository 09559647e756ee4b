// Package database starts the database server a run asks for, PostgreSQL or
// MariaDB (for MySQL's protocol), as a container beside the run's targets,
// and reads its figures by SQL once a second while a target is attacked. It
// implements bench.DatabaseRuntime.
//
// There is no registry to pull a server's image from: each image is
// assembled from the host's Debian package (postgresql-15, mariadb-server),
// as internal/targets/jrebase assembles the Java base image: the server's
// binaries with the shared libraries ldd lists, its data files, a user db
// (uid 999), dash and cp for its scripts, imported as a root file system
// whose tag carries a hash of its recipe. Its system tables, database and
// account are made once, by a container of that root file system, which is
// committed as the image (prepare). A server copies that template into its
// data directory, a tmpfs, each time it starts, so that every run begins
// from the same empty database (the seeded table, bench.DatabaseTable, and
// the run's init script are all it holds), in a quarter of the CPU time
// making it anew took.
package database
