package kerr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMessageErrorMatchesSentinel proves a message-carrying error, even when
// wrapped again, still matches its sentinel and reports Kafka's name and code.
func TestMessageErrorMatchesSentinel(t *testing.T) {
	err := fmt.Errorf("commit: %w", GroupIDNotFound.WithMessage("Group %s is not a consumer group.", "g"))
	assert.ErrorIs(t, err, GroupIDNotFound)
	assert.NotErrorIs(t, err, UnknownMemberID)
	assert.Equal(t, int16(69), Code(err))
	assert.Equal(t, "GROUP_ID_NOT_FOUND", Name(err))
	assert.Equal(t, "commit: GROUP_ID_NOT_FOUND: Group g is not a consumer group.", err.Error())
}

// TestCodeOfForeignErrors proves nil maps to NONE/0 and a non-Kafka error to
// UNKNOWN_SERVER_ERROR/-1, as Kafka's Errors.forException does.
func TestCodeOfForeignErrors(t *testing.T) {
	assert.Equal(t, int16(0), Code(nil))
	assert.Equal(t, "NONE", Name(nil))
	assert.Equal(t, int16(-1), Code(errors.New("boom")))
	assert.Equal(t, "UNKNOWN_SERVER_ERROR", Name(errors.New("boom")))
	assert.Nil(t, As(errors.New("boom")))
}
