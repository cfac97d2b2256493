package io.flexlog.client;

/**
 * Where a color's log starts and ends (docs/architecture.md#head-and-tail), as {@link
 * FlexLog#tail(String)} found them.
 *
 * @param color the color's name
 * @param head the first SN that is not trimmed: the trim point + 1, or 1 when the color was never
 *     trimmed. Reads below it throw {@link io.flexlog.core.error.TrimmedException}.
 * @param tail the last SN the color's ordering role had issued when asked, or {@code epoch.0}
 *     before the first SN of the role's current epoch. Every SN up to it holds a record or is a
 *     hole; a read above it throws {@link io.flexlog.core.error.SnBeyondTailException}, and a
 *     subscription from {@code tail + 1} sees only later appends.
 */
public record ColorTail(String color, long head, long tail) {}
