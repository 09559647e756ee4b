package targets_test

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// writeJar writes a jar whose Start-Class was compiled for release (0: no
// class at all) with the given manifest lines.
func writeJar(t *testing.T, release int, manifest ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app-1.0.jar")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("META-INF/MANIFEST.MF")
	w.Write([]byte("Manifest-Version: 1.0\r\n" + strings.Join(manifest, "\r\n") + "\r\n\r\n"))
	if release > 0 {
		w, _ = zw.Create("BOOT-INF/classes/com/example/App.class")
		head := make([]byte, 8)
		binary.BigEndian.PutUint32(head, 0xCAFEBABE)
		binary.BigEndian.PutUint16(head[6:], uint16(release+44))
		w.Write(head)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestJarJavaMajor(t *testing.T) {
	for _, tt := range []struct {
		name     string
		release  int
		manifest []string
		want     int
	}{
		// Spring Boot: the Start-Class's class file decides.
		{"StartClass21", 21, []string{"Main-Class: org.springframework.boot.loader.launch.JarLauncher", "Start-Class: com.example.App", "Build-Jdk-Spec: 25"}, 21},
		{"StartClass25", 25, []string{"Start-Class: com.example.App"}, 25},
		// No class to read: the JDK it was built with.
		{"BuildJdkSpec", 0, []string{"Build-Jdk-Spec: 25"}, 25},
		// Nothing at all: the first Java with virtual threads.
		{"Nothing", 0, nil, 21},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := targets.JarJavaMajor(writeJar(t, tt.release, tt.manifest...))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("JarJavaMajor = %d, want %d", got, tt.want)
			}
		})
	}
	if _, err := targets.JarJavaMajor("own_test.go"); err == nil || !strings.Contains(err.Error(), "is not a jar") {
		t.Errorf("a file that is no jar: err = %v", err)
	}
}

func TestOwnValidate(t *testing.T) {
	jar := writeJar(t, 21)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644)
	builtins := targets.DefaultCatalog().Names()
	for _, tt := range []struct {
		name string
		own  targets.Own
		want string // "" for valid
	}{
		{"Jar", targets.Own{Name: "orders", Jar: jar}, ""},
		{"Image", targets.Own{Name: "orders", Image: "registry.example/orders:1.2"}, ""},
		{"Dockerfile", targets.Own{Name: "orders", Dockerfile: dir, JDK: 25}, ""},
		{"NoSource", targets.Own{Name: "orders"}, "t.jar: target \"orders\" needs exactly one of image, dockerfile, jar or jars (it has 0)"},
		{"TwoSources", targets.Own{Name: "orders", Jar: jar, Image: "x"}, "needs exactly one of image, dockerfile, jar or jars (it has 2)"},
		{"JarMissing", targets.Own{Name: "orders", Jar: "/nonexistent/app.jar"}, "t.jar: no jar file at /nonexistent/app.jar"},
		{"NoDockerfile", targets.Own{Name: "orders", Dockerfile: t.TempDir()}, "t.dockerfile: no Dockerfile in directory"},
		{"BuiltinName", targets.Own{Name: "go", Jar: jar}, `t.name: "go" is a built-in target`},
		{"BadName", targets.Own{Name: "My App", Jar: jar}, "t.name: must be lower-case"},
		{"JDK17", targets.Own{Name: "orders", Jar: jar, JDK: 17}, "t.jdk: must be one of 25, 21, got 17"},
		{"JDKForImage", targets.Own{Name: "orders", Image: "x", JDK: 21}, "t.jdk: is for a jar or a Dockerfile"},
		{"HealthNotPath", targets.Own{Name: "orders", Jar: jar, Health: "health"}, `t.health: must be a path starting with /, got "health"`},
		{"BadEnv", targets.Own{Name: "orders", Jar: jar, Env: map[string]string{"A-B": "1"}}, `t.env: bad environment variable name "A-B"`},
		{"BadModel", targets.Own{Name: "orders", Jar: jar, Variants: map[string]targets.OwnVariant{"fast": {ThreadModel: "green"}}}, "t.variants.fast.threadModel: must be platform, virtual or goroutines"},
		{"BuildArgsForJar", targets.Own{Name: "orders", Jar: jar, BuildArgs: map[string]string{"A": "b"}}, "t.buildArgs: is for a Dockerfile"},
		{"ImageOnAJVM", targets.Own{Name: "orders", Image: "x", JVM: true}, ""},
		{"GoServiceProfiled", targets.Own{Name: "orders", Image: "x", Pprof: "/debug/pprof/profile"}, ""},
		{"JVMForJar", targets.Own{Name: "orders", Jar: jar, JVM: true}, "t.jvm: is for an image or a Dockerfile"},
		{"JVMAndPprof", targets.Own{Name: "orders", Image: "x", JVM: true, Pprof: "/debug/pprof/profile"}, "t.pprof: is for a Go service"},
		{"PprofNotPath", targets.Own{Name: "orders", Image: "x", Pprof: "debug/pprof"}, `t.pprof: must be a path starting with /, got "debug/pprof"`},
		{"PprofForJar", targets.Own{Name: "orders", Jar: jar, Pprof: "/debug/pprof/profile"}, "t.pprof: is for a Go service"},
		{"Database", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "postgres", Pool: 20}}, ""},
		{"DatabaseKind", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "oracle"}}, `t.database.kind: must be one of postgres, mysql, got "oracle"`},
		{"DatabasePool", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "mysql", Pool: -1}}, "t.database.pool: must be from 1 to"},
		{"DatabaseEnv", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "mysql", Env: bench.DatabaseEnv{URL: "A B"}}}, `t.database.env.url: "A B" is not`},
		{"DatabaseInitMissing", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "mysql", Init: "/nonexistent/schema.sql"}}, "t.database.init: read the init script"},
		{"DatabaseInitDirectory", targets.Own{Name: "orders", Jar: jar, Database: &targets.OwnDatabase{Kind: "mysql", Init: dir}}, "is not a file of SQL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.own.Validate("t", builtins)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || bench.ErrorCode(err) != bench.EINVALID || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want EINVALID containing %q", err, tt.want)
			}
		})
	}
}

// TestOwnEntry: a jar with nothing else said runs as Spring Boot's two
// thread models, on SERVER_PORT, ready by Actuator or its first request,
// with Actuator's figures when they answer.
func TestOwnEntry(t *testing.T) {
	e := targets.Own{Name: "orders", Jar: writeJar(t, 21)}.Entry()
	info := e.Info()
	if got, want := info.Variants, []string{"platform", "virtual"}; !slices.Equal(got, want) {
		t.Errorf("variants = %v, want %v", got, want)
	}
	if info.Kind != "java" || info.DefaultVariant != "platform" || !e.Own || !info.Own {
		t.Errorf("kind %q, default variant %q, own %t (info: %t)", info.Kind, info.DefaultVariant, e.Own, info.Own)
	}
	if e.HealthPath != targets.ActuatorHealth || !e.Listening.HealthFallback || e.MetricsPath != targets.ActuatorPrometheus || !e.Listening.MetricsOptional {
		t.Errorf("health %q (fallback %t), metrics %q (optional %t)", e.HealthPath, e.Listening.HealthFallback, e.MetricsPath, e.Listening.MetricsOptional)
	}
	for _, tt := range []struct{ variant, model, env string }{{"platform", "platform", "false"}, {"virtual", "virtual", "true"}} {
		env, _, err := targets.ContainerEnv(e.Resolve("orders@"+tt.variant), "orders@"+tt.variant, 18080, targets.StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if env["SERVER_PORT"] != "18080" || env["SERVER_ADDRESS"] != "127.0.0.1" {
			t.Errorf("%s: SERVER_PORT %q, SERVER_ADDRESS %q", tt.variant, env["SERVER_PORT"], env["SERVER_ADDRESS"])
		}
		if !strings.Contains(env["JDK_JAVA_OPTIONS"], "-XX:MaxRAMPercentage=50") {
			t.Errorf("%s: JDK_JAVA_OPTIONS %q lacks the Java targets' heap share", tt.variant, env["JDK_JAVA_OPTIONS"])
		}
		if got := env["SPRING_THREADS_VIRTUAL_ENABLED"]; got != tt.env {
			t.Errorf("%s: SPRING_THREADS_VIRTUAL_ENABLED = %q, want %q", tt.variant, got, tt.env)
		}
		if got := e.Resolve("orders@" + tt.variant).ThreadModel; got != tt.model {
			t.Errorf("%s: thread model %q, want %q", tt.variant, got, tt.model)
		}
	}
}

// A service's configured database reaches its catalog entry with the init
// script's SQL read, and its description says it.
func TestOwnEntriesDatabase(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "schema.sql")
	os.WriteFile(schema, []byte("create table orders (id int);\n"), 0o644)
	entries, err := targets.OwnEntries([]targets.Own{
		{Name: "orders", Jar: writeJar(t, 21), Database: &targets.OwnDatabase{Kind: "postgres", Init: schema, Pool: 20}},
		{Name: "plain", Image: "x"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := entries[0].Info()
	if d := info.Database; d == nil || d.Kind != "postgres" || d.Pool != 20 || d.Init != "create table orders (id int);\n" {
		t.Errorf("database %+v, want postgres, pool 20, the schema's SQL", d)
	}
	if !strings.Contains(info.Description, "with its postgres database") {
		t.Errorf("description %q does not say the database", info.Description)
	}
	if entries[1].Info().Database != nil {
		t.Errorf("a service configured without one has database %+v", entries[1].Info().Database)
	}
}

// TestOwnVariantForms: a variant in the configuration is either its
// fields or, for short, its environment alone; its thread model is its
// name, else what Spring's switch says.
func TestOwnVariantForms(t *testing.T) {
	const doc = `
name: shop
image: shop:1
variants:
  loom: {SPRING_THREADS_VIRTUAL_ENABLED: "true"}
  classic:
    threadModel: platform
    env: {POOL: "50"}
    jvmFlags: ["-Xss512k"]
`
	var o targets.Own
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	if got := o.Variants["loom"].Env["SPRING_THREADS_VIRTUAL_ENABLED"]; got != "true" {
		t.Errorf("short form: env = %v", o.Variants["loom"])
	}
	if v := o.Variants["classic"]; v.ThreadModel != "platform" || v.Env["POOL"] != "50" || !slices.Equal(v.JVMFlags, []string{"-Xss512k"}) {
		t.Errorf("long form: %+v", v)
	}
	if err := o.Validate("targets[0]", nil); err != nil {
		t.Fatal(err)
	}
	e := o.Entry()
	if got, want := e.Info().Variants, []string{"classic", "loom"}; !slices.Equal(got, want) {
		t.Errorf("variants = %v, want %v", got, want)
	}
	if got := e.Variations["loom"].ThreadModel; got != bench.ThreadModelVirtual {
		t.Errorf("loom's thread model = %q, want virtual (from SPRING_THREADS_VIRTUAL_ENABLED)", got)
	}
	if e.Variations["loom"].Threads == nil || e.Variations["classic"].Threads != nil {
		t.Errorf("only the virtual variant reads requests in flight as virtual threads")
	}
}

// TestRunsJVM: what is recorded with JFR is every Java recipe and what is
// marked a JVM; what serves pprof is the Go target and a service given its
// path; the own frames of a jar are its main class's package.
func TestRunsJVM(t *testing.T) {
	jar := writeJar(t, 21, "Start-Class: com.example.App")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644)
	for _, tt := range []struct {
		name  string
		entry targets.Entry
		jvm   bool
		pprof string
		own   string
	}{
		{"Go", targets.GoEntry(), false, "/debug/pprof/profile", "github.com/threadbench/threadbench/targets/go/"},
		{"JavaPlatform", targets.DefaultCatalog().Entries()[1], true, "", "io.threadbench."},
		{"Jar", targets.Own{Name: "orders", Jar: jar}.Entry(), true, "", "com.example."},
		{"DockerfileWithJDK", targets.Own{Name: "orders", Dockerfile: dir, JDK: 21}.Entry(), true, "", ""},
		{"Dockerfile", targets.Own{Name: "orders", Dockerfile: dir}.Entry(), false, "", ""},
		{"Image", targets.Own{Name: "orders", Image: "x"}.Entry(), false, "", ""},
		{"ImageMarked", targets.Own{Name: "orders", Image: "x", JVM: true}.Entry(), true, "", ""},
		{"GoImage", targets.Own{Name: "orders", Image: "x", Pprof: "/debug/pprof/profile"}.Entry(), false, "/debug/pprof/profile", "main."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.entry.RunsJVM(); got != tt.jvm {
				t.Errorf("RunsJVM() = %v, want %v", got, tt.jvm)
			}
			if tt.entry.PprofPath != tt.pprof || tt.entry.OwnPrefix != tt.own {
				t.Errorf("pprof %q, own %q; want %q, %q", tt.entry.PprofPath, tt.entry.OwnPrefix, tt.pprof, tt.own)
			}
		})
	}
}

// TestRefusedRecording: a start that failed because of the recording is
// told by the JVM's words about JFR in the log the failure quotes; any
// other failure is not retried without it.
func TestRefusedRecording(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"NotWritable", errors.New("target orders exited before it was healthy (exit code 1, OOM-killed false); its log ends:\n" +
			"Picked up JAVA_TOOL_OPTIONS: -XX:StartFlightRecording=filename=/tmp/threadbench.jfr\n" +
			"[0.9s][error][jfr,startup] Could not start recording, not able to write to file /tmp/threadbench.jfr.\n" +
			"Error occurred during initialization of VM\nFailure when starting JFR on_create_vm_3"),
			"[0.9s][error][jfr,startup] Could not start recording, not able to write to file /tmp/threadbench.jfr. / Failure when starting JFR on_create_vm_3"},
		{"OtherFailure", errors.New("target orders exited before it was healthy (exit code 1, OOM-killed false); its log ends:\n" +
			"Picked up JAVA_TOOL_OPTIONS: -XX:StartFlightRecording=filename=/tmp/threadbench.jfr\n" +
			"APPLICATION FAILED TO START\nPort 8080 was already in use."), ""},
		{"NoLog", errors.New("start target orders on engine local: create container: boom"), ""},
		{"None", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := targets.RefusedRecording(tt.err); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
