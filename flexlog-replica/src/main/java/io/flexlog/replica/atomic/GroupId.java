package io.flexlog.replica.atomic;

/** The 128-bit id of an atomic group, as a map key. */
record GroupId(long high, long low) {}
