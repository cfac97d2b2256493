package io.flexlog.replica.atomic;

/** A 128-bit append token, as a map key. */
record TokenKey(long session, long sequence) {}
