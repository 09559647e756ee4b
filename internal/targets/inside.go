package targets

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/jdk"
	"github.com/threadbench/threadbench/internal/jfr"
	"github.com/threadbench/threadbench/internal/threaddump"
)

// What records inside a target: a JVM's flight recording (JFR), started
// through JAVA_TOOL_OPTIONS, which every JVM reads whatever its command
// line, so that any JVM is recorded with no change to the user's code; a
// Go service's CPU profiles, which it serves itself (net/http/pprof).

// haltGrace is how long a recorded JVM is given to exit when halted: it
// writes its recording as it exits (under a second for a few megabytes on
// one CPU; longer for a recording near its maximum size).
const haltGrace = 60 * time.Second

// settingToolOptions is the setting that records the JVM's
// JAVA_TOOL_OPTIONS when threadbench set them.
const settingToolOptions = "javaToolOptions"

// RunsJVM reports whether the entry's targets run a JVM: the Java
// recipes', a Dockerfile given a JDK, an entry marked JVM.
func (e Entry) RunsJVM() bool {
	if e.JVM || e.Recipe.Runtime() == bench.RuntimeJava {
		return true
	}
	d, ok := e.Recipe.(DockerfileDir)
	return ok && d.JDK != 0
}

// launchRecorded launches a JVM target with the flight recording's
// options; a JVM that will not start with them (an option it refuses, a
// recording it cannot write) is launched again without, and its instance
// says why it has no recording.
func (r *Runtime) launchRecorded(ctx context.Context, entry Entry, target string, img bench.ImageInfo, opts StartOptions, port int, env, launched map[string]string) (*Instance, error) {
	smp := r.threadSampler(ctx)
	if opts.NoThreadSamples {
		smp = sampler{missing: samplesOff}
	}
	inst, err := r.launch(ctx, entry, target, img, opts, port, r.withRecording(ctx, img, env, smp), launched, smp.files()...)
	if err == nil {
		inst.recording, inst.noSamples = true, smp.missing
		inst.settings[settingToolOptions] = inst.env[jfr.EnvVar]
		return inst, nil
	}
	refused := refusedRecording(err)
	if refused == "" || ctx.Err() != nil {
		return nil, err
	}
	inst, err = r.launch(ctx, entry, target, img, opts, port, env, launched)
	if err != nil {
		return nil, err
	}
	inst.noProfile = "the JVM would not start with the flight recording's options (" + jfr.EnvVar + "), so it ran without: " + refused
	return inst, nil
}

// withRecording returns env with the recording's options added to
// JAVA_TOOL_OPTIONS: after the value env gives, else the image's own, so
// that those stay in force; and the thread sampler's, where there is one.
func (r *Runtime) withRecording(ctx context.Context, img bench.ImageInfo, env map[string]string, smp sampler) map[string]string {
	out := maps.Clone(env)
	out[jfr.EnvVar] = jfr.DefaultSettings().ToolOptions(r.javaToolBase(ctx, img, env))
	if smp.jar != nil {
		out[jfr.EnvVar] += " " + threaddump.Option(threaddump.DefaultPeriod, threaddump.DefaultBudget)
	}
	return out
}

// withJavaToolOptions returns env with the operator's JVM options
// (RuntimeOptions.JavaToolOptions) added to JAVA_TOOL_OPTIONS: after the
// value env gives, else the image's own, so that those stay in force; a
// recording's come after them (withRecording reads this value as given).
func (r *Runtime) withJavaToolOptions(ctx context.Context, img bench.ImageInfo, env map[string]string) map[string]string {
	out := maps.Clone(env)
	out[jfr.EnvVar] = strings.TrimSpace(r.javaToolBase(ctx, img, env) + " " + r.javaTool)
	return out
}

// javaToolBase is the JAVA_TOOL_OPTIONS options are added to: the value
// env gives, else the image's own.
func (r *Runtime) javaToolBase(ctx context.Context, img bench.ImageInfo, env map[string]string) string {
	if base, given := env[jfr.EnvVar]; given {
		return base
	}
	return r.imageEnv(ctx, img.Ref, jfr.EnvVar)
}

// imageEnv returns the value an image's configuration gives a variable,
// "" when it gives none or the image cannot be inspected.
func (r *Runtime) imageEnv(ctx context.Context, ref, name string) string {
	res, err := r.docker.ImageInspect(ctx, ref)
	if err != nil || res.Config == nil {
		return ""
	}
	for _, kv := range res.Config.Env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// jfrLine finds a JVM's lines about its flight recorder, or about the
// thread sampler's agent, in a log.
var jfrLine = regexp.MustCompile(`(?im)^.*(jfr|flight ?record|javaagent|threadbench-sampler|agent library).*$`)

// refusedRecording returns the JVM's own words when a start failed because
// of the recording (the log the error quotes speaks of JFR), "" otherwise.
func refusedRecording(err error) string {
	if err == nil {
		return ""
	}
	_, logs, ok := strings.Cut(err.Error(), "its log ends:\n")
	if !ok {
		return ""
	}
	var lines []string
	for _, l := range jfrLine.FindAllString(logs, -1) {
		if l = strings.TrimSpace(l); !strings.HasPrefix(l, "Picked up "+jfr.EnvVar) {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " / ")
}

// Inside says what records inside the instance: JFR for a JVM started
// with the recording, its CPU profile for a target that serves one.
func (in *Instance) Inside() bench.InsideInfo {
	info := bench.InsideInfo{OwnPrefix: in.entry.OwnPrefix}
	switch {
	case in.entry.RunsJVM() && in.recording:
		info.Source = bench.ProfileJFR
		info.ThreadSamples, info.NoThreadSamples, info.ThreadSamplesOff = in.noSamples == "", in.noSamples, in.noSamples == samplesOff
	case in.entry.RunsJVM():
		info.NoProfile = cmp.Or(in.noProfile, "the JVM was started without the flight recording")
	case in.entry.PprofPath != "":
		info.Source, info.ProfileURL = bench.ProfilePprof, in.BaseURL()+in.entry.PprofPath
	default:
		info.NoProfile = fmt.Sprintf("threadbench records inside JVMs (JFR) and Go services that serve net/http/pprof; "+
			"%s is not known to be either (mark an image or a Dockerfile jvm: true, or give a Go service's pprof path)", in.entry.Name)
	}
	return info
}

// Halt stops the container and keeps it: a JVM writes its recording as it
// exits on the stop's SIGTERM, and CopyRecording copies it out of the
// stopped container; Stop removes it.
func (in *Instance) Halt(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.stopped || in.halted {
		return nil
	}
	grace := int(stopGracePeriod / time.Second)
	if in.recording {
		grace = int(haltGrace / time.Second)
	}
	if _, err := in.runtime.docker.ContainerStop(ctx, in.id, client.ContainerStopOptions{Timeout: &grace}); err != nil {
		return fmt.Errorf("stop target %s: %w", in.entry.Name, err)
	}
	in.halted = true
	return nil
}

// CopyRecording copies the JVM's recording out of the halted container
// into dst (jfr.Copy): jfr.ErrNoRecording when it holds none.
func (in *Instance) CopyRecording(ctx context.Context, dst string) (int64, error) {
	return jfr.Copy(ctx, in.runtime.docker, in.id, jfr.Path, dst)
}

// CopyThreadSamples copies the thread sampler's file out of the halted
// container into dst: jfr.ErrNoRecording when it holds none.
func (in *Instance) CopyThreadSamples(ctx context.Context, dst string) (int64, error) {
	return jfr.Copy(ctx, in.runtime.docker, in.id, threaddump.Path, dst)
}

// RunJFR runs jfr in the instance's image (jfr.ImageTool), on its engine,
// in a container labelled as the run's, so that a sweep finds any a crash
// left.
func (in *Instance) RunJFR(ctx context.Context, stdout io.Writer, file string, args ...string) error {
	labels := map[string]string{LabelManaged: "true", LabelTarget: in.entry.Name, LabelRun: in.runID,
		LabelHistory: in.runtime.history, LabelInstance: in.instance}
	return jfr.ImageTool(in.runtime.docker, in.image.Ref, labels).Run(ctx, stdout, file, args...)
}

var _ bench.InsideTarget = (*Instance)(nil)

// samplesOff is why a JVM the spec asked no thread samples of has none.
const samplesOff = "turned off (noThreadSamples)"

// sampler is the thread sampler's jar as a recorded JVM's container gets
// it, or why there is none (missing).
type sampler struct {
	jar     []byte
	missing string
}

// threadSampler returns the thread sampler, built once with the host's
// JDK: the agent must be compiled here, as the target's image may hold no
// javac. Without a JDK the JVMs record without it, and say why.
func (r *Runtime) threadSampler(ctx context.Context) sampler {
	r.samplerOnce.Do(func() {
		j, err := jdk.Find()
		if err != nil {
			r.sampler.missing = "no host JDK to build the thread sampler with: " + err.Error()
			return
		}
		jar, done, err := threaddump.Jar(context.WithoutCancel(ctx), j)
		if err != nil {
			r.sampler.missing = "the thread sampler could not be built: " + err.Error()
			return
		}
		defer done()
		if r.sampler.jar, err = os.ReadFile(jar); err != nil {
			r.sampler.missing = "the thread sampler could not be read: " + err.Error()
		}
	})
	return r.sampler
}

// files are what a container gets copied in before it starts: the jar,
// where there is one.
func (s sampler) files() []containerFile {
	if s.jar == nil {
		return nil
	}
	return []containerFile{{Dir: threaddump.ContainerDir, Name: threaddump.JarName, Data: s.jar}}
}
