package targets_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// A service of one's own as a matrix: its thread models (Spring Boot's
// two, for a jar), two JDKs and an axis of its own, in the configuration's
// order; every variant is one value of each, its environment and flags
// theirs.
func TestOwnAxesEntry(t *testing.T) {
	doc := `
name: orders
jar: ` + writeJar(t, 21) + `
jdks: [21, 25]
axes:
  pool:
    t400: {SERVER_TOMCAT_THREADS_MAX: "400"}
    t200:
      env: {SERVER_TOMCAT_THREADS_MAX: "200"}
      jvmFlags: ["-Xss512k"]
`
	var o targets.Own
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate("targets[0]", targets.DefaultCatalog().Names()); err != nil {
		t.Fatal(err)
	}
	e := o.Entry()
	info := e.Info()
	var axes []string
	for _, a := range info.Axes {
		axes = append(axes, a.Name+"="+strings.Join(a.Values, "|"))
	}
	if got, want := axes, []string{"variant=platform|virtual", "jdk=21|25", "pool=t400|t200"}; !slices.Equal(got, want) {
		t.Errorf("axes = %v, want %v (the configuration's order)", got, want)
	}
	if len(info.Variants) != 8 || info.Variants[0] != "platform,jdk=21,pool=t400" || info.DefaultVariant != info.Variants[0] || !info.RunsEachVariant() {
		t.Errorf("variants = %v (default %q), want 8, platform,jdk=21,pool=t400 first and the default", info.Variants, info.DefaultVariant)
	}
	// Named by the axes in any order, it runs as the catalog names it.
	r := e.Resolve("orders@pool=t200,jdk=25,virtual")
	if want := map[string]string{"variant": "virtual", "jdk": "25", "pool": "t200"}; !maps.Equal(r.AxisValues, want) {
		t.Errorf("axis values = %v, want %v", r.AxisValues, want)
	}
	env, settings, err := targets.ContainerEnv(r, "orders@virtual,jdk=25,pool=t200", 18080, targets.StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if env["SPRING_THREADS_VIRTUAL_ENABLED"] != "true" || env["SERVER_TOMCAT_THREADS_MAX"] != "200" || r.ThreadModel != bench.ThreadModelVirtual {
		t.Errorf("env %v, thread model %q: want virtual threads and a pool of 200", env, r.ThreadModel)
	}
	if !strings.HasSuffix(settings["jvmFlags"], " -Xss512k") {
		t.Errorf("JVM flags %q, want the pool value's flag last", settings["jvmFlags"])
	}
	if got := e.Variations["platform,jdk=25,pool=t400"].JDK; got != 25 {
		t.Errorf("the jdk=25 variant is built on Java %d", got)
	}
}

// An axis of pool sizes: the axis' datasource variable wins over the
// run's database pool, and DB_POOL and the recorded pool follow it; a
// value that sets none keeps the database's.
func TestOwnAxisPoolOverDatabase(t *testing.T) {
	doc := `
name: orders
jar: ` + writeJar(t, 21) + `
axes:
  pool:
    p10: {SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE: "10"}
    p100: {SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE: "100"}
    other: {SERVER_TOMCAT_THREADS_MAX: "50"}
`
	var o targets.Own
	if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate("targets[0]", targets.DefaultCatalog().Names()); err != nil {
		t.Fatal(err)
	}
	db := bench.DatabaseConn{Kind: bench.DatabasePostgres, Host: "127.0.0.1", Port: 5432, Name: "threadbench", User: "threadbench", Password: "pw"}.Env(10, bench.DefaultDatabaseEnv)
	for value, want := range map[string]string{"p10": "10", "p100": "100", "other": "10"} {
		ref := "orders@virtual,pool=" + value
		entry, opts := o.Entry().Resolve(ref), targets.StartOptions{Database: db}
		env, _, err := targets.ContainerEnv(entry, ref, 18080, opts)
		if err != nil {
			t.Fatal(err)
		}
		settings := targets.Settings(entry, bench.ImageInfo{}, 18080, nil, opts)
		if env["SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE"] != want || env[bench.EnvDBPool] != want || settings["database.pool"] != want || env["SPRING_DATASOURCE_URL"] == "" {
			t.Errorf("%s: pool variable %q, DB_POOL %q, recorded %q, URL %q; want %s and the database's URL", value,
				env["SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE"], env[bench.EnvDBPool], settings["database.pool"], env["SPRING_DATASOURCE_URL"], want)
		}
	}
}

// The built-in Java targets take the same form: java-virtual@jdk=21 is
// java-virtual@21, and a plain name runs on the run's JDK, else 25.
func TestBuiltinAxis(t *testing.T) {
	e, err := targets.DefaultCatalog().Lookup("java-virtual@jdk=21")
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"java-virtual@jdk=21": "21", "java-virtual@21": "21", "java-virtual": "25"} {
		if got := e.Resolve(ref).AxisValues[bench.AxisJDK]; got != want {
			t.Errorf("%s runs on JDK %q, want %s", ref, got, want)
		}
	}
	if axes := e.Info().Axes; len(axes) != 1 || axes[0].Name != bench.AxisJDK {
		t.Errorf("axes = %+v, want the JDK's alone", axes)
	}
}

func TestOwnAxesValidate(t *testing.T) {
	jar := writeJar(t, 21)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644)
	pool := func(name string, values ...string) targets.OwnAxis {
		a := targets.OwnAxis{Name: name}
		for _, v := range values {
			a.Values = append(a.Values, targets.OwnAxisValue{Name: v, OwnVariant: targets.OwnVariant{Env: map[string]string{"POOL": v}}})
		}
		return a
	}
	for _, tt := range []struct {
		name string
		own  targets.Own
		want string // "" for valid
	}{
		{"JDKs", targets.Own{Name: "orders", Jar: jar, JDKs: []int{21, 25}}, ""},
		{"DockerfileJDKs", targets.Own{Name: "orders", Dockerfile: dir, JDKs: []int{25, 21}}, ""},
		{"Axis", targets.Own{Name: "orders", Image: "x", Axes: targets.OwnAxes{pool("pool", "a", "b")}}, ""},
		{"JDKCannotBuild", targets.Own{Name: "orders", Jar: jar, JDKs: []int{21, 17}}, "t.jdks: this host builds JREs for Java 25 and 21 only, got 17"},
		{"JDKTwice", targets.Own{Name: "orders", Jar: jar, JDKs: []int{21, 21}}, "t.jdks: Java 21 is listed twice"},
		{"JDKOne", targets.Own{Name: "orders", Jar: jar, JDKs: []int{21}}, "t.jdks: several JDKs are an axis; give one as jdk"},
		{"JDKAndJDKs", targets.Own{Name: "orders", Jar: jar, JDK: 21, JDKs: []int{21, 25}}, "t.jdks: give jdk (one) or jdks (several), not both"},
		{"JDKsForImage", targets.Own{Name: "orders", Image: "x", JDKs: []int{21, 25}}, "t.jdks: is for a jar or a Dockerfile"},
		{"AxisNamedJDK", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("jdk", "a", "b")}}, "t.axes.jdk: collides with the JDK axis"},
		{"AxisNamedVariant", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("variant", "a", "b")}}, "t.axes.variant: collides with its variants' axis"},
		{"AxisNamedThreadModel", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("threadModel", "a", "b")}}, "t.axes.threadModel: collides with its variants' axis"},
		{"AxisTwice", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("pool", "a", "b"), pool("pool", "c", "d")}}, `t.axes.pool: axis "pool" is defined twice`},
		{"AxisOneValue", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("pool", "a")}}, "t.axes.pool: an axis needs at least two values (it has 1)"},
		{"AxisValueTwice", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("pool", "a", "a")}}, `t.axes.pool.a: value "a" is defined twice`},
		{"AxisBadName", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{pool("Pool", "a", "b")}}, "t.axes.Pool: an axis's name must be lower-case"},
		{"AxisThreadModel", targets.Own{Name: "orders", Jar: jar, Axes: targets.OwnAxes{{Name: "pool", Values: []targets.OwnAxisValue{
			{Name: "a", OwnVariant: targets.OwnVariant{ThreadModel: "virtual"}}, {Name: "b"}}}}}, "t.axes.pool.a.threadModel: the thread model is the variants' axis"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.own.Validate("t", nil)
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
