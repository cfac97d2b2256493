package io.flexlog.bench.failover;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What {@code flexlog bench failover} runs: a {@code dev --processes} cluster under {@code data} on
 * {@code port}..{@code port + 5} (admin services from {@code port + 20}), one closed-loop appender
 * pacing {@code ratePerSecond} appends to {@code global}, and {@code kills} SIGKILLs of global's
 * leader, each followed by a restart of the killed node and {@code settle} of steady load.
 */
public record FailoverSettings(
    Path data, int port, int kills, int ratePerSecond, Duration settle, Duration appendTimeout) {}
