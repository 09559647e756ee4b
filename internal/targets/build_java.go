package targets

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets/jdk"
	"github.com/threadbench/threadbench/internal/targets/jrebase"
)

// DefaultJavaBaseImage is the JRE image the Java target runs on unless told
// otherwise. Where it can be neither found locally nor pulled, Build
// assembles an equivalent JRE image from the host's JDK instead.
const DefaultJavaBaseImage = "eclipse-temurin:25-jre"

// javaJar is where Maven leaves the Spring Boot jar, relative to targets/java.
const javaJar = "target/threadbench-java.jar"

// pullTimeout bounds an attempt to pull the base image: on a host without a
// registry it fails, and the build falls back to a local JRE.
const pullTimeout = 20 * time.Second

// javaInputs are the files, under the repository root, the Java image is made from.
var javaInputs = []string{
	"targets/java/pom.xml",
	"targets/java/src",
	"targets/java/.mvn",
	"targets/java/Dockerfile",
}

// buildJava packages targets/java with Maven and builds its Dockerfile on a
// JRE base image.
func (r *Runtime) buildJava(ctx context.Context, root string, opts BuildOptions) (bench.ImageInfo, error) {
	base := opts.JavaBaseImage
	if base == "" {
		base = DefaultJavaBaseImage
	}
	// The JDK builds the jar and, without a pullable base, the base too.
	j, jdkErr := jdk.Find()
	// The base is resolved before the cache is consulted, and the image is
	// tagged by the base it resolved to: a new host JDK (a new assembled
	// base) means a new image, never a stale one.
	baseRef, err := r.resolveJavaBase(ctx, base, opts.JavaBaseImage != "", j, jdkErr, opts.log())
	if err != nil {
		return bench.ImageInfo{}, err
	}
	hash, err := InputsHash(root, javaInputs, "BASE_IMAGE="+baseRef)
	if err != nil {
		return bench.ImageInfo{}, err
	}
	ref := JavaImageRepo + ":" + shortHash(hash)
	if info, ok, err := r.cachedImage(ctx, ref); ok || err != nil {
		return info, err
	}
	if jdkErr != nil {
		return bench.ImageInfo{}, jdkErr
	}
	dir := filepath.Join(root, "targets", "java")
	if err := mavenPackage(ctx, dir, j, opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	labels := map[string]string{labelInputs: hash, labelBase: baseRef, labelRuntime: r.javaRuntime(ctx, baseRef, j)}
	if err := r.buildImage(ctx, ref, dir, map[string]string{"BASE_IMAGE": baseRef}, labels, opts.log()); err != nil {
		return bench.ImageInfo{}, err
	}
	return r.imageInfo(ctx, ref, false)
}

// mavenPackage builds the jar with the project's Maven wrapper.
func mavenPackage(ctx context.Context, dir string, j jdk.JDK, log io.Writer) error {
	fmt.Fprintf(log, "mvnw package (%s)\n", j)
	cmd := exec.CommandContext(ctx, "./mvnw", "-B", "-q", "package", "-DskipTests")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JAVA_HOME="+j.Home)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("mvnw package in %s: %w", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, javaJar)); err != nil {
		return fmt.Errorf("mvnw package left no %s: %w", javaJar, err)
	}
	return nil
}

// resolveJavaBase returns the base image to build on: want if it is local
// or can be pulled. Otherwise, unless the user chose want explicitly, a JRE
// assembled from the host's JDK (once: when it exists, the default base is
// not pulled again on every build); a user's explicit choice is never
// swapped for something else behind their back.
func (r *Runtime) resolveJavaBase(ctx context.Context, want string, explicit bool, j jdk.JDK, jdkErr error, log io.Writer) (string, error) {
	if ok, err := r.imageExists(ctx, want); err != nil || ok {
		return want, err
	}
	if !explicit && jdkErr == nil {
		if ok, _ := r.imageExists(ctx, jrebase.Ref(j)); ok {
			return jrebase.Ref(j), nil
		}
	}
	pullErr := r.pull(ctx, want, log)
	if pullErr == nil {
		return want, nil
	}
	if explicit {
		return "", bench.Errorf(bench.EUNAVAILABLE,
			"java base image %s is not in the local image store and could not be pulled (%v); load it (docker load) or leave the base image unset to assemble a JRE from the host's JDK", want, pullErr)
	}
	if jdkErr != nil {
		return "", fmt.Errorf("base image %s cannot be pulled (%v), and no JDK to assemble one from: %w", want, pullErr, jdkErr)
	}
	fmt.Fprintf(log, "base image %s: not local and not pullable (%v); assembling a JRE image from %s\n", want, pullErr, j)
	ref, err := jrebase.Ensure(ctx, r.docker, j, log)
	if err != nil {
		return "", fmt.Errorf("assemble a JRE base image: %w", err)
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
