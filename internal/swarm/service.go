package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/swarm"
	"github.com/moby/moby/client"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/targets"
)

// Service places generators as a replicated service of a Docker swarm:
// one task per node labelled for load, on the node's own network (host
// networking), each running `orchestrator generate` from an image made of
// this very binary. There is no registry between the nodes: the image is
// built on the manager's engine and loaded onto each labelled node's, so
// every such node's engine must be one the orchestrator is configured to
// reach (engines:).
type Service struct {
	cfg ServiceConfig

	mu    sync.Mutex
	image string // built once per process
}

// ServiceConfig is what a Service needs; every field is required but Log.
type ServiceConfig struct {
	// Manager is the engine of a manager node of the swarm.
	Manager *targets.Runtime
	// Engines are the engines the orchestrator reaches, the manager's
	// among them: the labelled nodes' are found among them by node ID.
	Engines []*targets.Runtime
	// Port is where each generator listens on its node.
	Port int
	// Label names the node label that places generators: a node with
	// Label=true takes one.
	Label string
	// Binary is the orchestrator's executable, static, that the image is
	// made of.
	Binary string
	// History labels the services, so that a service this history's runs
	// left behind (a killed process) is removed before the next.
	History string
	// Log receives the image's build and loads; nil discards it.
	Log io.Writer
}

// Labels on the services and their containers.
const (
	labelRole     = "io.threadbench.role"
	roleGenerator = "generator"
	// labelService is the one Docker puts on a task's container.
	labelService = "com.docker.swarm.service.id"
)

// imageRepository names the generator's image; its tag is the binary's hash.
const imageRepository = "threadbench/generator"

// TokenEnv is the variable that gives a generator its token.
const TokenEnv = "THREADBENCH_GENERATOR_TOKEN"

// Defaults of a swarm's configuration.
const (
	// DefaultPort is where generators listen on their nodes.
	DefaultPort = 7471
	// DefaultLabel is the node label that places generators.
	DefaultLabel = "threadbench.load"
)

// Polling while the swarm catches up.
const (
	pollEvery   = 200 * time.Millisecond
	whyPatience = 5 * time.Second // for a task's end to show after its connection dropped
)

// NewService returns a Service.
func NewService(cfg ServiceConfig) *Service {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	return &Service{cfg: cfg}
}

var _ Fleet = (*Service)(nil)

// Check refuses a target on this host's loopback: a generator on another
// node cannot reach it.
func (s *Service) Check(baseURL string) error {
	u, err := url.Parse(baseURL)
	if err != nil {
		return fmt.Errorf("target URL %q: %w", baseURL, err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
		return bench.Errorf(bench.EUNAVAILABLE, "the target is reached at %s, on this host's loopback, which swarm generators on other nodes cannot reach: run targets on an engine whose address the nodes reach (engines: address)", u.Host)
	}
	return nil
}

// Place puts the image on every labelled node, creates the service of n
// generators, at most one per node, and waits until every task runs.
func (s *Service) Place(ctx context.Context, n int, token string) (Placed, error) {
	nodes, err := s.loadNodes(ctx)
	if err != nil {
		return nil, err
	}
	if len(nodes) < n {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "the swarm has %d ready node(s) labelled %s=true, and %d generators need one each (docker node update --label-add %s=true NODE)", len(nodes), s.cfg.Label, n, s.cfg.Label)
	}
	image, err := s.distribute(ctx, nodes)
	if err != nil {
		return nil, err
	}
	if err := s.sweep(ctx); err != nil {
		return nil, err
	}
	created, err := s.docker().ServiceCreate(ctx, client.ServiceCreateOptions{Spec: s.spec(image, n, token)})
	if err != nil {
		return nil, fmt.Errorf("create the generators' service: %w", err)
	}
	p := &service{s: s, id: created.ID, nodes: nodes}
	if err := p.waitRunning(ctx, n); err != nil {
		rm, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
		defer cancel()
		return nil, errors.Join(err, p.Remove(rm))
	}
	return p, nil
}

func (s *Service) docker() client.APIClient { return s.cfg.Manager.Client() }

// loadNodes lists the nodes labelled for load that are ready and active.
func (s *Service) loadNodes(ctx context.Context) ([]swarm.Node, error) {
	list, err := s.docker().NodeList(ctx, client.NodeListOptions{Filters: make(client.Filters).Add("node.label", s.cfg.Label+"=true")})
	if err != nil {
		return nil, bench.Errorf(bench.EUNAVAILABLE, "list the swarm's nodes on engine %s (is it a swarm manager?): %v", s.cfg.Manager.EngineName(), err)
	}
	var nodes []swarm.Node
	for _, n := range list.Items {
		if n.Status.State == swarm.NodeStateReady && n.Spec.Availability == swarm.NodeAvailabilityActive {
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}

// distribute builds the generator's image on the manager's engine (once)
// and loads it onto every node's engine that lacks it.
func (s *Service) distribute(ctx context.Context, nodes []swarm.Node) (string, error) {
	image, err := s.buildImage(ctx)
	if err != nil {
		return "", err
	}
	engines, err := s.engineIDs(ctx)
	if err != nil {
		return "", err
	}
	for _, n := range nodes {
		rt, ok := engines[n.ID]
		if !ok {
			return "", bench.Errorf(bench.EUNAVAILABLE, "node %s (%s) is labelled %s=true, but none of the configured engines is its: add its engine to engines: so that the generator's image can be loaded there", n.Description.Hostname, nodeAddress(n), s.cfg.Label)
		}
		if err := rt.CopyImage(ctx, s.cfg.Manager, image, s.cfg.Log); err != nil {
			return "", err
		}
	}
	return image, nil
}

// buildImage makes the generator's image of this binary, once.
func (s *Service) buildImage(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.image != "" {
		return s.image, nil
	}
	ref, err := s.cfg.Manager.BuildBinaryImage(ctx, imageRepository, s.cfg.Binary, []string{"generate"}, s.cfg.Log)
	if err != nil {
		return "", fmt.Errorf("the generator's image: %w", err)
	}
	s.image = ref
	return ref, nil
}

// engineIDs maps node IDs to the configured engines that are those nodes.
func (s *Service) engineIDs(ctx context.Context) (map[string]*targets.Runtime, error) {
	ids := map[string]*targets.Runtime{}
	for _, rt := range s.cfg.Engines {
		info, err := rt.Client().Info(ctx, client.InfoOptions{})
		if err != nil {
			continue // an engine that does not answer is no node's
		}
		if id := info.Info.Swarm.NodeID; id != "" {
			ids[id] = rt
		}
	}
	return ids, nil
}

// sweep removes the generator services this history left behind.
func (s *Service) sweep(ctx context.Context) error {
	list, err := s.docker().ServiceList(ctx, client.ServiceListOptions{Filters: make(client.Filters).Add("label", s.labels()...)})
	if err != nil {
		return fmt.Errorf("list the swarm's services: %w", err)
	}
	for _, svc := range list.Items {
		if err := (&service{s: s, id: svc.ID}).Remove(ctx); err != nil {
			return fmt.Errorf("remove the generators a previous run left: %w", err)
		}
	}
	return nil
}

// labels are the "key=value" labels of this history's generators.
func (s *Service) labels() []string {
	return []string{targets.LabelManaged + "=true", targets.LabelHistory + "=" + s.cfg.History, labelRole + "=" + roleGenerator}
}

func (s *Service) labelMap() map[string]string {
	m := map[string]string{}
	for _, l := range s.labels() {
		k, v, _ := strings.Cut(l, "=")
		m[k] = v
	}
	return m
}

// spec is the service: n tasks of the image, one per labelled node, on
// the node's network, never restarted (a generator that dies must fail
// its attack, not come back for another).
func (s *Service) spec(image string, n int, token string) swarm.ServiceSpec {
	replicas := uint64(n)
	grace := 5 * time.Second
	return swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: "threadbench-generators-" + strconv.FormatInt(time.Now().UnixNano(), 36), Labels: s.labelMap()},
		Mode:        swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &replicas}},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: &swarm.ContainerSpec{
				Image:           image,
				Args:            []string{"--listen", ":" + strconv.Itoa(s.cfg.Port)},
				Env:             []string{TokenEnv + "=" + token},
				Hostname:        "{{.Node.Hostname}}",
				Labels:          s.labelMap(),
				StopGracePeriod: &grace,
			},
			Placement:     &swarm.Placement{Constraints: []string{"node.labels." + s.cfg.Label + "==true"}, MaxReplicas: 1},
			Networks:      []swarm.NetworkAttachmentConfig{{Target: "host"}},
			RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone},
		},
	}
}

// nodeAddress is where a node is reached: its address in the swarm, or
// for a manager that reports none its advertised one.
func nodeAddress(n swarm.Node) string {
	if a := n.Status.Addr; a != "" && a != "0.0.0.0" {
		return a
	}
	if n.ManagerStatus != nil {
		if host, _, err := net.SplitHostPort(n.ManagerStatus.Addr); err == nil {
			return host
		}
	}
	return n.Status.Addr
}

// service is a created service of generators.
type service struct {
	s       *Service
	id      string
	nodes   []swarm.Node
	members []Member
	slots   []int // each member's task slot
}

// waitRunning waits until n tasks run, and notes where; a task that
// failed or was rejected fails the wait with its error.
func (p *service) waitRunning(ctx context.Context, n int) error {
	for {
		tasks, err := p.tasks(ctx)
		if err != nil {
			return err
		}
		running := 0
		for _, t := range tasks {
			switch t.Status.State {
			case swarm.TaskStateRunning:
				running++
			case swarm.TaskStateFailed, swarm.TaskStateRejected, swarm.TaskStateComplete, swarm.TaskStateShutdown, swarm.TaskStateOrphaned:
				return fmt.Errorf("generator %d's task %s on %s: %s", t.Slot, t.Status.State, p.host(t.NodeID), taskError(t))
			}
		}
		if running == n {
			p.note(tasks)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the generators' tasks did not all run (%s): %w", describeTasks(tasks), ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// note records the members, in the order of their task slots.
func (p *service) note(tasks []swarm.Task) {
	slices.SortFunc(tasks, func(a, b swarm.Task) int { return a.Slot - b.Slot })
	for _, t := range tasks {
		node := p.node(t.NodeID)
		m := Member{Node: t.NodeID, Host: node.Description.Hostname,
			Address: net.JoinHostPort(nodeAddress(node), strconv.Itoa(p.s.cfg.Port)),
			Machine: bench.Machine{Host: node.Description.Hostname, OS: node.Description.Platform.OS + "/" + node.Description.Platform.Architecture,
				CPUs: int(node.Description.Resources.NanoCPUs / 1e9), MemoryBytes: node.Description.Resources.MemoryBytes,
				DockerVersion: node.Description.Engine.EngineVersion}}
		p.members, p.slots = append(p.members, m), append(p.slots, t.Slot)
	}
}

func (p *service) node(id string) swarm.Node {
	for _, n := range p.nodes {
		if n.ID == id {
			return n
		}
	}
	return swarm.Node{ID: id}
}

func (p *service) host(id string) string {
	if h := p.node(id).Description.Hostname; h != "" {
		return h
	}
	return id
}

// tasks lists the service's tasks: none once it is removed.
func (p *service) tasks(ctx context.Context) ([]swarm.Task, error) {
	list, err := p.s.docker().TaskList(ctx, client.TaskListOptions{Filters: make(client.Filters).Add("service", p.id)})
	switch {
	case cerrdefs.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("list the generators' tasks: %w", err)
	}
	return list.Items, nil
}

// Members are the generators, by task slot.
func (p *service) Members() []Member { return p.members }

// Why waits a little for generator i's task to end, and says how it did.
func (p *service) Why(ctx context.Context, i int) string {
	deadline := time.Now().Add(whyPatience)
	for {
		tasks, err := p.tasks(ctx)
		if err != nil {
			return ""
		}
		for _, t := range tasks {
			if t.Slot == p.slots[i] && (t.Status.State != swarm.TaskStateRunning || time.Now().After(deadline)) {
				return fmt.Sprintf("its swarm task on %s is %s: %s", p.host(t.NodeID), t.Status.State, taskError(t))
			}
		}
		if time.Now().After(deadline) {
			return ""
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(pollEvery):
		}
	}
}

// Remove removes the service and waits until its tasks and their
// containers are gone from every node.
func (p *service) Remove(ctx context.Context) error {
	if _, err := p.s.docker().ServiceRemove(ctx, p.id, client.ServiceRemoveOptions{}); err != nil && !cerrdefs.IsNotFound(err) {
		return fmt.Errorf("remove the generators' service %s: %w", p.id, err)
	}
	for {
		left, err := p.left(ctx)
		if err != nil || len(left) == 0 {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the generators' service %s left %s: %w", p.id, strings.Join(left, ", "), ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// left lists what is left of the service: its tasks, and its containers
// on any engine the orchestrator reaches.
func (p *service) left(ctx context.Context) ([]string, error) {
	var left []string
	tasks, err := p.tasks(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tasks {
		left = append(left, "task "+t.ID[:12])
	}
	for _, rt := range p.s.cfg.Engines {
		list, err := rt.Client().ContainerList(ctx, client.ContainerListOptions{All: true, Filters: make(client.Filters).Add("label", labelService+"="+p.id)})
		if err != nil {
			continue // an engine that does not answer holds nothing we can see
		}
		for _, c := range list.Items {
			left = append(left, fmt.Sprintf("container %.12s on %s", c.ID, rt.EngineName()))
		}
	}
	return left, nil
}

// taskError is what a task says of its state.
func taskError(t swarm.Task) string {
	switch {
	case t.Status.Err != "":
		return t.Status.Err
	case t.Status.Message != "":
		return t.Status.Message
	}
	return "no reason given"
}

// describeTasks sums the tasks' states up, for a timeout.
func describeTasks(tasks []swarm.Task) string {
	if len(tasks) == 0 {
		return "no task yet"
	}
	var parts []string
	for _, t := range tasks {
		parts = append(parts, fmt.Sprintf("task %d %s: %s", t.Slot, t.Status.State, taskError(t)))
	}
	return strings.Join(parts, "; ")
}
