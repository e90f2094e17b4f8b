package plugin

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
)

// SafeSet calls s.SetTopology so that nothing the store does can crash the caller.
//
// The arguments are checked first (CheckSetArgs); bad ones fail permanently without
// calling the store. A nil s gives ErrNoStore. A panic in the store becomes a
// permanent *PanicError, and a broken error value a permanent *NonsenseError. When ctx
// has a deadline and the store has not returned by then, SafeSet returns a transient
// error wrapping ctx.Err() (context.DeadlineExceeded) and leaves the store's call to
// finish on its own goroutine; without a deadline the store runs on the caller's
// goroutine. Every non-nil error returned is classified (see Classify).
func SafeSet(ctx context.Context, s Store, groupID string, topologyEpoch int32, d *TopologyDescription) error {
	if s == nil {
		return ErrNoStore
	}
	if err := CheckSetArgs(groupID, topologyEpoch, d); err != nil {
		return err
	}
	_, err := call(ctx, OpSet, func(ctx context.Context) (*TopologyDescription, error) {
		return nil, s.SetTopology(ctx, groupID, topologyEpoch, d)
	})
	return err
}

// SafeGet calls s.GetTopology with the protections of SafeSet. On top of those, an
// answer that carries both a description and an error, or a description that fails
// Validate, is a permanent *NonsenseError: Kafka's describe reports ERROR for it rather
// than passing garbage to a client. (nil, nil) is returned unchanged: it means "not
// stored".
func SafeGet(ctx context.Context, s Store, groupID string, topologyEpoch int32) (*TopologyDescription, error) {
	if s == nil {
		return nil, ErrNoStore
	}
	if err := CheckGroupID(groupID); err != nil {
		return nil, err
	}
	if err := CheckEpoch(topologyEpoch); err != nil {
		return nil, err
	}
	return call(ctx, OpGet, func(ctx context.Context) (*TopologyDescription, error) {
		return s.GetTopology(ctx, groupID, topologyEpoch)
	})
}

// SafeDelete calls s.DeleteTopology with the protections of SafeSet.
func SafeDelete(ctx context.Context, s Store, groupID string) error {
	if s == nil {
		return ErrNoStore
	}
	if err := CheckGroupID(groupID); err != nil {
		return err
	}
	_, err := call(ctx, OpDelete, func(ctx context.Context) (*TopologyDescription, error) {
		return nil, s.DeleteTopology(ctx, groupID)
	})
	return err
}

// SafeClose calls s.Close on the caller's goroutine, turning a panic into a permanent
// *PanicError. A nil s is not an error: there is nothing to close.
func SafeClose(s Store) error {
	if s == nil {
		return nil
	}
	r := protect(context.Background(), OpClose, func(context.Context) (*TopologyDescription, error) {
		return nil, s.Close()
	})
	_, err := check(OpClose, r)
	return err
}

// result is what one store call produced.
type result struct {
	d        *TopologyDescription
	err      error
	panicked bool
}

// call runs fn under recover, inline when ctx has no deadline and on a goroutine when
// it has one, and checks the answer.
func call(ctx context.Context, op Op, fn func(context.Context) (*TopologyDescription, error)) (*TopologyDescription, error) {
	if ctx == nil {
		ctx = context.Background() // a nil context is a caller bug, but must not crash here
	}
	if err := ctx.Err(); err != nil {
		return nil, Transient(fmt.Errorf("topology description plugin %s not called: %w", op, err))
	}
	if _, ok := ctx.Deadline(); !ok {
		// Inline: the simulator relies on this to stay single-threaded.
		return check(op, protect(ctx, op, fn))
	}
	// Buffered so that the goroutine never blocks on a caller that gave up: it ends
	// when the store returns, whenever that is.
	done := make(chan result, 1)
	go func() { done <- protect(ctx, op, fn) }()
	select {
	case r := <-done:
		return check(op, r)
	case <-ctx.Done():
		// Prefer an answer that arrived together with the deadline: the store did
		// return in time, and that is the less surprising outcome.
		select {
		case r := <-done:
			return check(op, r)
		default:
		}
		return nil, Transient(fmt.Errorf("topology description plugin %s did not return before its deadline: %w", op, ctx.Err()))
	}
}

// protect runs fn and turns a panic into a permanent *PanicError.
func protect(ctx context.Context, op Op, fn func(context.Context) (*TopologyDescription, error)) (r result) {
	defer func() {
		if v := recover(); v != nil {
			r = result{err: Permanent(&PanicError{Op: op, Value: v, Stack: debug.Stack()}), panicked: true}
		}
	}()
	d, err := fn(ctx)
	return result{d: d, err: err}
}

// check turns a raw answer into what the caller may rely on: a valid description and
// no error, a nil description and a classified error, or (nil, nil).
func check(op Op, r result) (*TopologyDescription, error) {
	if r.panicked {
		return nil, r.err
	}
	if r.err != nil {
		class, text, reason := inspectError(r.err)
		if reason != "" {
			return nil, Permanent(&NonsenseError{Op: op, Reason: reason})
		}
		if r.d != nil {
			return nil, Permanent(&NonsenseError{Op: op, Reason: fmt.Sprintf("%s returned both a description and an error (%s)", op, text)})
		}
		if class == ClassPermanent {
			return nil, Permanent(r.err)
		}
		return nil, Transient(r.err)
	}
	if r.d != nil {
		if err := r.d.Validate(); err != nil {
			return nil, Permanent(&NonsenseError{Op: op, Reason: fmt.Sprintf("%s returned an invalid description", op), Err: err})
		}
	}
	return r.d, nil
}

// inspectError classifies err and reads its message under recover. reason is
// non-empty when err is not a usable error: a nil pointer (or other nil value) stored
// in a non-nil error interface, or an error whose methods panic. Such a value would
// crash whoever logs it later, so it must not travel further.
func inspectError(err error) (class Class, text, reason string) {
	v := reflect.ValueOf(err)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		if v.IsNil() {
			return ClassPermanent, "", fmt.Sprintf("returned a nil %T as a non-nil error", err)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			class, text, reason = ClassPermanent, "", fmt.Sprintf("returned an error of type %T whose methods panic", err)
		}
	}()
	return Classify(err), err.Error(), ""
}
