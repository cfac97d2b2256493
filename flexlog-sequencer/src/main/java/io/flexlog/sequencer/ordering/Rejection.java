package io.flexlog.sequencer.ordering;

import io.flexlog.core.error.ErrorCode;

/** Why a well-formed request was refused: answered with an ERROR frame, the connection stays. */
record Rejection(ErrorCode code, String message) {}
