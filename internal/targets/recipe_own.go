package targets

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
)

// ImageRef is a target of one's own given as an image already on the
// engine (built or pulled by the operator beforehand); it is pulled when
// it is not there and a registry answers.
type ImageRef struct{ Ref string }

// Runtime implements Recipe.
func (ImageRef) Runtime() string { return "image" }

func (ImageRef) missing() string { return "" }

func (i ImageRef) build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error) {
	ok, err := r.haveImage(ctx, i.Ref, job.opts.log())
	if err == nil && !ok {
		if pullErr := r.pull(ctx, i.Ref, job.opts.log()); pullErr != nil {
			return bench.ImageInfo{}, bench.Errorf(bench.EUNAVAILABLE,
				"target %s: image %s is not on engine %s and could not be pulled (%v); build or load it there first",
				job.entry.Name, i.Ref, r.engine.Name, pullErr)
		}
	}
	if err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, i.Ref, true)
}

// launch gives the JVM, if the image runs one, the flags of the target.
func (ImageRef) launch(e Entry, _ bench.StartRequest) (map[string]string, map[string]string, error) {
	return ownJVMEnv(e.JVMFlags)
}

// ownJVMEnv passes a target's own JVM flags, where it has any, in
// JDK_JAVA_OPTIONS, which the java launcher reads itself.
func ownJVMEnv(flags []string) (map[string]string, map[string]string, error) {
	if len(flags) == 0 {
		return nil, nil, nil
	}
	opts := strings.Join(flags, " ")
	return map[string]string{"JDK_JAVA_OPTIONS": opts}, map[string]string{"jvmFlags": opts}, nil
}

// DockerfileDir is a target of one's own built from a directory with a
// Dockerfile, cached by the hash of the directory's files like the
// built-ins. With a JDK (its own, or the run's), the project's JRE base of
// that major is handed to the build as BASE_IMAGE (ARG BASE_IMAGE / FROM ${BASE_IMAGE}), which works
// where no registry does.
type DockerfileDir struct {
	Dir       string
	JDK       int
	BuildArgs map[string]string
}

// Runtime implements Recipe.
func (DockerfileDir) Runtime() string { return "dockerfile" }

func (DockerfileDir) missing() string { return "" }

func (d DockerfileDir) build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error) {
	args := maps.Clone(d.BuildArgs)
	if args == nil {
		args = map[string]string{}
	}
	major := d.JDK
	if job.opts.JDK != 0 {
		major = job.opts.JDK
	}
	if _, given := args["BASE_IMAGE"]; major != 0 && !given {
		base, err := r.javaBase(ctx, major, job.opts)
		if err != nil {
			return bench.ImageInfo{}, err
		}
		args["BASE_IMAGE"] = base
	}
	extra := make([]string, 0, len(args))
	for _, k := range slices.Sorted(maps.Keys(args)) {
		extra = append(extra, k+"="+args[k])
	}
	hash, err := InputsHash(d.Dir, []string{"."}, extra...)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := job.entry.Repository + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref, job.opts.log()); ok || err != nil {
		return info, err
	}
	labels := map[string]string{labelInputs: hash}
	if base := args["BASE_IMAGE"]; base != "" {
		labels[labelBase] = base
		labels[labelRuntime] = r.javaRuntime(ctx, base, javaOfMajor(major))
	}
	if err := r.buildImage(ctx, ref, d.Dir, args, labels, job.opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, ref, false)
}

func (d DockerfileDir) launch(e Entry, req bench.StartRequest) (map[string]string, map[string]string, error) {
	if d.JDK == 0 {
		return ownJVMEnv(e.JVMFlags)
	}
	return javaLaunch(e, req)
}

// JarFile is a target of one's own given as an executable jar (a Spring
// Boot jar), run on the project's JRE of a Java major as the built-in Java
// targets are, with their JVM flags: the major given, else the lowest of
// 21 and 25 that runs the jar's classes.
type JarFile struct {
	Path string
	JDK  int
}

// Runtime implements Recipe.
func (JarFile) Runtime() string { return bench.RuntimeJava }

func (JarFile) missing() string { return "" }

// jarDockerfile puts the jar on a JRE base; exec form, since an assembled
// base has no shell.
const jarDockerfile = `ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY app.jar /app/app.jar
ENTRYPOINT ["java", "-jar", "/app/app.jar"]
`

func (j JarFile) build(ctx context.Context, r *Runtime, job buildJob) (bench.ImageInfo, error) {
	major, err := j.major(job.opts.JDK)
	if err != nil {
		return bench.ImageInfo{}, bench.Errorf(bench.EINVALID, "target %s: %v", job.entry.Name, err)
	}
	base, err := r.javaBase(ctx, major, job.opts)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	hash, err := InputsHash(filepath.Dir(j.Path), []string{filepath.Base(j.Path)}, "BASE_IMAGE="+base, jarDockerfile)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := job.entry.Repository + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref, job.opts.log()); ok || err != nil {
		return info, err
	}
	labels := map[string]string{labelInputs: hash, labelBase: base, labelRuntime: r.javaRuntime(ctx, base, javaOfMajor(major))}
	return r.buildFromTemp(ctx, job, ref, jarDockerfile, map[string]string{"BASE_IMAGE": base}, labels, func(dir string) error {
		if err := copyFile(os.DirFS(filepath.Dir(j.Path)), filepath.Base(j.Path), filepath.Join(dir, "app.jar")); err != nil {
			return fmt.Errorf("build %s: %w", job.entry.Name, err)
		}
		return nil
	})
}

// launch runs the jar with the Java targets' flags (heap share, NMT) and
// the target's own, so that its variants differ only in their variation.
func (JarFile) launch(e Entry, req bench.StartRequest) (map[string]string, map[string]string, error) {
	return javaLaunch(e, req)
}

// javaLaunch is the JVM flags of the built-in Java targets, then the
// target's own.
func javaLaunch(e Entry, req bench.StartRequest) (map[string]string, map[string]string, error) {
	flags, err := JVMFlags(req.Java)
	if err != nil {
		return nil, nil, err
	}
	opts := strings.Join(append(flags, e.JVMFlags...), " ")
	return map[string]string{"JDK_JAVA_OPTIONS": opts}, map[string]string{"jvmFlags": opts}, nil
}

// major is the Java major the jar runs on: the run's, else the target's,
// else the lowest the project has that runs its classes.
func (j JarFile) major(runJDK int) (int, error) {
	switch {
	case runJDK != 0:
		return runJDK, nil
	case j.JDK != 0:
		return j.JDK, nil
	}
	need, err := JarJavaMajor(j.Path)
	if err != nil {
		return 0, err
	}
	for _, v := range []int{21, 25} {
		if need <= v {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%s needs Java %d; the JREs here are 21 and 25", filepath.Base(j.Path), need)
}

// JarJavaMajor returns the Java major a jar's classes need: from the class
// file of its Start-Class (Spring Boot) or Main-Class, else the manifest's
// Build-Jdk-Spec, else 21.
func JarJavaMajor(path string) (int, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, fmt.Errorf("%s is not a jar: %w", path, err)
	}
	defer zr.Close()
	manifest := readManifest(&zr.Reader)
	for _, key := range []string{"Start-Class", "Main-Class"} {
		class := manifest[key]
		if class == "" {
			continue
		}
		rel := strings.ReplaceAll(class, ".", "/") + ".class"
		for _, name := range []string{"BOOT-INF/classes/" + rel, rel} {
			if major, ok := classMajor(&zr.Reader, name); ok {
				return major, nil
			}
		}
	}
	if spec, err := strconv.Atoi(manifest["Build-Jdk-Spec"]); err == nil && spec > 0 {
		return spec, nil
	}
	return 21, nil
}

// JarPackage returns the package of a jar's main class (Spring Boot's
// Start-Class, else Main-Class) with a trailing dot, "com.example.orders.";
// "" when the jar names none or cannot be read.
func JarPackage(path string) string {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return ""
	}
	defer zr.Close()
	manifest := readManifest(&zr.Reader)
	class := manifest["Start-Class"]
	if class == "" {
		class = manifest["Main-Class"]
	}
	if i := strings.LastIndexByte(class, '.'); i > 0 && !strings.HasPrefix(class, "org.springframework.") {
		return class[:i+1]
	}
	return ""
}

// readManifest reads META-INF/MANIFEST.MF's main section (continuation
// lines joined).
func readManifest(zr *zip.Reader) map[string]string {
	out := map[string]string{}
	f, err := zr.Open("META-INF/MANIFEST.MF")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	last := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			break
		}
		if strings.HasPrefix(line, " ") && last != "" {
			out[last] += line[1:]
			continue
		}
		if k, v, ok := strings.Cut(line, ": "); ok {
			out[k], last = v, k
		}
	}
	return out
}

// classMajor reads the Java release a class file was compiled for (its
// major version less 44).
func classMajor(zr *zip.Reader, name string) (int, bool) {
	f, err := zr.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || binary.BigEndian.Uint32(head[:4]) != 0xCAFEBABE {
		return 0, false
	}
	return int(binary.BigEndian.Uint16(head[6:8])) - 44, true
}

// javaOfMajor names a runtime where the base image does not.
func javaOfMajor(major int) jdk.JDK { return jdk.JDK{Version: strconv.Itoa(major), Major: major} }
