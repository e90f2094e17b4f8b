package coordinator

import "errors"

// ErrPending is what Future.Result returns before the future completes.
var ErrPending = errors.New("coordinator: operation not completed yet")

// Future is the eventual outcome of an operation. A write's response is
// released when its records are committed; with no commit delay that happens
// before the call that created the future returns. Futures complete on the
// coordinator's goroutine (inside a call or Poll), never concurrently.
type Future[T any] struct {
	done      bool
	value     T
	err       error
	callbacks []func(T, error)
	// staged is a write's response, held until its records commit.
	staged T
}

// completer is what the write path completes at commit. A Future is one, so
// a write needs no closure per operation.
type completer interface{ settle(err error) }

// settle completes a write's future with its staged response or err.
func (f *Future[T]) settle(err error) {
	if err != nil {
		var zero T
		f.complete(zero, err)
		return
	}
	f.complete(f.staged, nil)
}

// doneFunc adapts a function to completer.
type doneFunc func(error)

func (d doneFunc) settle(err error) { d(err) }

func completed[T any](v T, err error) *Future[T] {
	return &Future[T]{done: true, value: v, err: err}
}

// Done reports whether the future has completed.
func (f *Future[T]) Done() bool { return f.done }

// Result returns the outcome, or ErrPending before completion.
func (f *Future[T]) Result() (T, error) {
	if !f.done {
		var zero T
		return zero, ErrPending
	}
	return f.value, f.err
}

// OnDone calls fn with the outcome when the future completes, or at once if
// it already has. Callbacks run in registration order.
func (f *Future[T]) OnDone(fn func(T, error)) {
	if f.done {
		fn(f.value, f.err)
		return
	}
	f.callbacks = append(f.callbacks, fn)
}

func (f *Future[T]) complete(v T, err error) {
	if f.done {
		return
	}
	f.done, f.value, f.err = true, v, err
	cbs := f.callbacks
	f.callbacks = nil
	for _, fn := range cbs {
		fn(v, err)
	}
}
