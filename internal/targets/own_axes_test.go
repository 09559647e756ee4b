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
	if got, want := axesOf(info), []string{"variant=platform|virtual", "jdk=21|25", "pool=t400|t200"}; !slices.Equal(got, want) {
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
// java-virtual@21, and a plain name runs on the run's JDK, else 25; the
// servlet models on Spring Boot 4.1 unless a reference names 3.5, whose
// build is its own (boot3/pom.xml). The reactive model has the JDK's
// axis alone: it is built on 4.1 only.
func TestBuiltinAxis(t *testing.T) {
	e, err := targets.DefaultCatalog().Lookup("java-virtual@jdk=21")
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"java-virtual@jdk=21": "21,4.1", "java-virtual@21": "21,4.1", "java-virtual": "25,4.1",
		"java-virtual@boot=3.5": "25,3.5", "java-virtual@21,boot=3.5": "21,3.5", "java-virtual@boot=3.5,jdk=21": "21,3.5"} {
		r := e.Resolve(ref)
		if got := r.AxisValues[bench.AxisJDK] + "," + r.AxisValues[bench.AxisSpringBoot]; got != want {
			t.Errorf("%s runs on JDK and Spring Boot %q, want %s", ref, got, want)
		}
		pom := ""
		if m, ok := r.Recipe.(targets.MavenJar); ok {
			pom = m.POM
		}
		if boot3 := strings.HasSuffix(want, "3.5"); boot3 != (pom == "boot3/pom.xml") {
			t.Errorf("%s is built from %q", ref, pom)
		}
	}
	if axes := e.Info().Axes; len(axes) != 2 || axes[0].Name != bench.AxisJDK || axes[1].Name != bench.AxisSpringBoot {
		t.Errorf("axes = %+v, want the JDK's and Spring Boot's", axes)
	}
	if err := bench.CheckTargetRef("java-virtual@boot=3.2", targets.DefaultCatalog().Infos(), "targets[0]"); err == nil {
		t.Error("java-virtual@boot=3.2 found, want refused: Spring Boot 4.1 and 3.5 only")
	}
	reactive, err := targets.DefaultCatalog().Lookup("java-reactive")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reactive.Info().AxisOf(bench.AxisSpringBoot); ok {
		t.Errorf("java-reactive has a Spring Boot axis: %+v", reactive.Info().AxesOf())
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

// axesOf writes a target's axes as name=value|value, in their order.
func axesOf(info bench.TargetInfo) []string {
	var axes []string
	for _, a := range info.Axes {
		axes = append(axes, a.Name+"="+strings.Join(a.Values, "|"))
	}
	return axes
}

func TestBuildName(t *testing.T) {
	for _, tt := range []struct{ jar, want string }{
		{"orders.jar", "orders"},
		{"target/orders-slower.jar", "orders-slower"},
		// The version stays: it is what tells two builds apart.
		{"/x/orders-1.2.jar", "orders-1.2"},
		{"/x/My App_v2.jar", "my-app_v2"},
	} {
		if got := targets.BuildName(tt.jar); got != tt.want {
			t.Errorf("BuildName(%q) = %q, want %q", tt.jar, got, tt.want)
		}
	}
}

// jarNamed writes a jar file of a name in a directory of its own.
func jarNamed(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Two builds of one service are an axis of its variants, after its
// thread models: each variant builds and runs its own jar, and records its
// build beside its other axes.
func TestOwnBuildsEntry(t *testing.T) {
	before, after := jarNamed(t, "orders.jar"), jarNamed(t, "orders-slower.jar")
	o := targets.Own{Name: "orders", Jars: []string{before, after}, JDK: 21}
	if err := o.Validate("", targets.DefaultCatalog().Names()); err != nil {
		t.Fatal(err)
	}
	e := o.Entry()
	info := e.Info()
	if got, want := axesOf(info), []string{"variant=platform|virtual", "build=orders|orders-slower"}; !slices.Equal(got, want) {
		t.Errorf("axes = %v, want %v", got, want)
	}
	if got, want := info.Variants, []string{"platform,build=orders", "platform,build=orders-slower", "virtual,build=orders", "virtual,build=orders-slower"}; !slices.Equal(got, want) {
		t.Errorf("variants = %v, want %v", got, want)
	}
	for _, tt := range []struct{ ref, jar string }{
		{"orders@virtual,build=orders-slower", after},
		{"orders@build=orders,platform", before},
		{"orders@virtual", before}, // the first build is the default
	} {
		r := e.Resolve(tt.ref)
		jar, ok := r.Recipe.(targets.JarFile)
		if !ok || jar.Path != tt.jar || jar.JDK != 21 {
			t.Errorf("%s runs %#v, want the jar %s on Java 21", tt.ref, r.Recipe, tt.jar)
		}
		if r.AxisValues[bench.AxisBuild] != targets.BuildName(tt.jar) {
			t.Errorf("%s records axis values %v, want build=%s", tt.ref, r.AxisValues, targets.BuildName(tt.jar))
		}
	}
}

// Several builds are two to MaxBuilds jars that are there, no two of one
// name, and not beside a jar, nor an axis of their name.
func TestOwnBuildsRefused(t *testing.T) {
	a, b := jarNamed(t, "orders.jar"), jarNamed(t, "orders-slower.jar")
	for _, tt := range []struct {
		name string
		own  targets.Own
		want string
	}{
		{"One", targets.Own{Name: "orders", Jars: []string{a}}, "targets[0].jars: several builds are an axis; give one as jar"},
		{"Missing", targets.Own{Name: "orders", Jars: []string{a, "nope/orders-2.jar"}}, "targets[0].jars: no jar file at nope/orders-2.jar"},
		{"OneName", targets.Own{Name: "orders", Jars: []string{a, jarNamed(t, "orders.jar")}}, `targets[0].jars: ` + a + ` and `},
		{"TooMany", targets.Own{Name: "orders", Jars: []string{a, b, jarNamed(t, "c.jar"), jarNamed(t, "d.jar"), jarNamed(t, "e.jar")}}, "targets[0].jars: at most 4 builds of one service run side by side, got 5"},
		{"BesideAJar", targets.Own{Name: "orders", Jar: a, Jars: []string{a, b}}, `targets[0].jar: target "orders" needs exactly one of image, dockerfile, jar or jars (it has 2)`},
		{"AxisOfItsName", targets.Own{Name: "orders", Jars: []string{a, b}, Axes: targets.OwnAxes{{Name: "build", Values: []targets.OwnAxisValue{{Name: "x"}, {Name: "y"}}}}},
			"targets[0].axes.build: collides with the builds' axis"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.own.Validate("targets[0]", targets.DefaultCatalog().Names())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}
