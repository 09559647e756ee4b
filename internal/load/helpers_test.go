package load_test

import (
	"errors"

	"github.com/threadbench/threadbench/internal/bench"
)

func asError(err error, e **bench.Error) bool { return errors.As(err, e) }
