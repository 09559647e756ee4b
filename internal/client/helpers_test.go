package client_test

import (
	"errors"

	"github.com/threadbench/threadbench/internal/bench"
)

func asError(err error, target **bench.Error) bool { return errors.As(err, target) }
