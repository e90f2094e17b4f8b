package plugin

import (
	"errors"
	"fmt"
)

// Class is the class of a store failure, as the coordinator reacts to it.
type Class uint8

// The classes. ClassNone is the class of a nil error.
const (
	ClassNone      Class = iota // no failure
	ClassTransient              // retry later, under back-off
	ClassPermanent              // do not retry until the topology epoch advances
)

// String returns the lower-case name of the class.
func (c Class) String() string {
	switch c {
	case ClassNone:
		return "none"
	case ClassTransient:
		return "transient"
	case ClassPermanent:
		return "permanent"
	default:
		return fmt.Sprintf("Class(%d)", uint8(c))
	}
}

// The classification sentinels: errors.Is(err, ErrPermanent) holds for an error made
// by Permanent, errors.Is(err, ErrTransient) for one made by Transient. They mirror
// Kafka's StreamsTopologyDescriptionPermanentFailureException and
// StreamsTopologyDescriptionTransientFailureException. A store may also wrap them
// directly: fmt.Errorf("backend gone: %w", plugin.ErrPermanent).
var (
	ErrPermanent = errors.New("permanent topology description store failure")
	ErrTransient = errors.New("transient topology description store failure")
)

// Sentinels for conditions every store shares. Each is classified permanent, because
// retrying the same call cannot succeed: errors.Is(err, ErrClosed) and
// errors.Is(err, ErrPermanent) both hold for a store's ErrClosed.
var (
	// ErrClosed is returned by a store's methods after Close.
	ErrClosed = Permanent(errors.New("topology description store is closed"))
	// ErrNoStore is returned by the Safe calls when they are given a nil Store.
	ErrNoStore = Permanent(errors.New("no topology description store configured"))
	// ErrInvalidArgument is wrapped by errors about a bad group id, epoch or nil
	// description.
	ErrInvalidArgument = Permanent(errors.New("invalid topology description store argument"))
	// ErrInvalidDescription is wrapped by every error of TopologyDescription.Validate.
	ErrInvalidDescription = Permanent(errors.New("invalid topology description"))
)

// FailedMessage is Kafka's fixed message for a plugin that threw synchronously or
// answered with nothing. The Safe calls use it for panics and nonsensical answers, so
// that what a client sees never depends on what a plugin put in a panic.
const FailedMessage = "Topology description plugin failed."

// classifiedError attaches a class to an error without changing its message.
type classifiedError struct {
	err   error
	class Class
}

func (e *classifiedError) Error() string { return e.err.Error() }

// Unwrap exposes both the wrapped error and the class sentinel, so errors.Is finds
// the caller's own sentinels as well as ErrPermanent or ErrTransient.
func (e *classifiedError) Unwrap() []error {
	if e.class == ClassPermanent {
		return []error{e.err, ErrPermanent}
	}
	return []error{e.err, ErrTransient}
}

// Permanent marks err as a permanent failure; it returns nil for a nil err. The
// message is unchanged and errors.Is/As still see err. Marking an error that is
// already classified re-classifies it: the outermost mark wins.
func Permanent(err error) error { return classify(err, ClassPermanent) }

// Transient marks err as a transient failure; it returns nil for a nil err. The
// message is unchanged and errors.Is/As still see err. Marking an error that is
// already classified re-classifies it: the outermost mark wins.
func Transient(err error) error { return classify(err, ClassTransient) }

func classify(err error, c Class) error {
	if err == nil {
		return nil
	}
	if ce, ok := err.(*classifiedError); ok && ce.class == c {
		return err // already marked at the top: do not stack identical marks
	}
	return &classifiedError{err: err, class: c}
}

// Classify returns the class of err: ClassNone for nil; otherwise the class of the
// outermost mark made by Permanent or Transient (in errors.As order); otherwise
// ClassPermanent if err wraps ErrPermanent; otherwise ClassTransient. Anything
// unclassified is transient, as in Kafka.
func Classify(err error) Class {
	if err == nil {
		return ClassNone
	}
	var ce *classifiedError
	if errors.As(err, &ce) {
		return ce.class
	}
	if errors.Is(err, ErrPermanent) {
		return ClassPermanent
	}
	return ClassTransient
}

// PanicError is the error a Safe call returns when the store panicked. Its message is
// always FailedMessage; the panic value and stack are kept for logs.
type PanicError struct {
	Op    Op     // the operation that panicked
	Value any    // what the store passed to panic
	Stack []byte // the stack of the panicking goroutine
}

// Error returns FailedMessage, whatever the panic value.
func (e *PanicError) Error() string { return FailedMessage }

// NonsenseError is the error a Safe call returns when the store answered with
// something no correct store returns. Its message is always FailedMessage.
type NonsenseError struct {
	Op     Op     // the operation that answered
	Reason string // what was wrong with the answer
	// Err is the validation failure of an invalid description, if that was the
	// nonsense. A broken error value from the store is never kept here, because
	// calling its methods could panic again.
	Err error
}

// Error returns FailedMessage, whatever the answer was.
func (e *NonsenseError) Error() string { return FailedMessage }

// Unwrap returns the error behind the nonsense, if any.
func (e *NonsenseError) Unwrap() error { return e.Err }
