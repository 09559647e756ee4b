package main

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/threadbench/threadbench/internal/bench"
	"github.com/threadbench/threadbench/internal/load"
	"github.com/threadbench/threadbench/internal/runner"
	"github.com/threadbench/threadbench/internal/swarm"
)

func newGenerateCmd(g *globalState) *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Serve as one load generator of a swarm: what the generators' service runs on each node",
		Long: "Listen for the orchestrator, which connects, measures this host's clock against its own, and\n" +
			"hands over a share of an attack and a common start time; send it with this process's load\n" +
			"engines, stream each second back, send the result, and exit. The orchestrator must give the\n" +
			"token in " + swarm.TokenEnv + " (the service's environment carries it). Nobody needs to run this\n" +
			"by hand: a daemon configured with a swarm (swarm: in its config) starts it as a service.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token := g.getenv(swarm.TokenEnv)
			if token == "" {
				return bench.FieldErrorf(swarm.TokenEnv, "the generator needs the orchestrator's token in %s", swarm.TokenEnv)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return bench.Errorf(bench.EUNAVAILABLE, "listen on %s: %v", listen, err)
			}
			gen := &swarm.Generator{Token: token, Attacker: loadEngines(load.NewEngine()), Machine: runner.LocalMachine(), Log: g.stderr}
			return gen.Serve(g.ctx, ln)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", fmt.Sprintf(":%d", swarm.DefaultPort), "address to listen on for the orchestrator")
	return cmd
}
