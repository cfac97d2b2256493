package io.flexlog.replica.atomic;

/** A member being forwarded: its group and index, found by the member's token. */
record MemberRef(StagedGroup group, int index) {}
