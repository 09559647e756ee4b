package spec_test

import (
	"encoding/json"
	"errors"

	"github.com/threadbench/threadbench/internal/bench"
)

func asError(err error, e **bench.Error) bool { return errors.As(err, e) }

func jsonUnmarshal(doc string, v any) error { return json.Unmarshal([]byte(doc), v) }
