package plugin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/plugin"
)

// TestClassify proves that Classify reads the class through any wrapping, that the
// outermost mark wins, and that an unclassified error is transient.
func TestClassify(t *testing.T) {
	base := errors.New("backend")
	tests := []struct {
		name string
		err  error
		want plugin.Class
	}{
		{"nil", nil, plugin.ClassNone},
		{"unclassified", base, plugin.ClassTransient},
		{"context deadline", context.DeadlineExceeded, plugin.ClassTransient},
		{"permanent", plugin.Permanent(base), plugin.ClassPermanent},
		{"transient", plugin.Transient(base), plugin.ClassTransient},
		{"wrapped permanent", fmt.Errorf("set group g: %w", plugin.Permanent(base)), plugin.ClassPermanent},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", plugin.Permanent(base))), plugin.ClassPermanent},
		{"sentinel wrapped with %w", fmt.Errorf("gone: %w", plugin.ErrPermanent), plugin.ClassPermanent},
		{"transient sentinel", fmt.Errorf("busy: %w", plugin.ErrTransient), plugin.ClassTransient},
		{"outermost wins: permanent", plugin.Permanent(plugin.Transient(base)), plugin.ClassPermanent},
		{"outermost wins: transient", plugin.Transient(plugin.Permanent(base)), plugin.ClassTransient},
		{"ErrClosed", plugin.ErrClosed, plugin.ClassPermanent},
		{"wrapped ErrClosed", fmt.Errorf("get: %w", plugin.ErrClosed), plugin.ClassPermanent},
		{"ErrInvalidArgument", plugin.ErrInvalidArgument, plugin.ClassPermanent},
		{"joined", errors.Join(io.EOF, plugin.Permanent(base)), plugin.ClassPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, plugin.Classify(tt.err))
		})
	}
}

// TestMarksKeepTheError proves that marking an error changes neither its message nor
// what errors.Is and errors.As find, and that the sentinels are found too.
func TestMarksKeepTheError(t *testing.T) {
	base := &myError{"disk full"}
	p := plugin.Permanent(base)
	assert.Equal(t, "disk full", p.Error())
	assert.ErrorIs(t, p, base)
	assert.ErrorIs(t, p, plugin.ErrPermanent)
	assert.NotErrorIs(t, p, plugin.ErrTransient)
	var got *myError
	assert.ErrorAs(t, p, &got)

	tr := plugin.Transient(base)
	assert.ErrorIs(t, tr, plugin.ErrTransient)
	assert.NotErrorIs(t, tr, plugin.ErrPermanent)

	assert.NoError(t, plugin.Permanent(nil))
	assert.NoError(t, plugin.Transient(nil))
	assert.Same(t, p, plugin.Permanent(p), "marking twice with the same class adds nothing")
	assert.ErrorIs(t, plugin.ErrClosed, plugin.ErrPermanent)
}

type myError struct{ msg string }

func (e *myError) Error() string { return e.msg }

// TestClassString proves the names used in logs and metrics.
func TestClassString(t *testing.T) {
	assert.Equal(t, "none", plugin.ClassNone.String())
	assert.Equal(t, "transient", plugin.ClassTransient.String())
	assert.Equal(t, "permanent", plugin.ClassPermanent.String())
	assert.Equal(t, "setTopology", plugin.OpSet.String())
	assert.Equal(t, "getTopology", plugin.OpGet.String())
	assert.Equal(t, "deleteTopology", plugin.OpDelete.String())
}
