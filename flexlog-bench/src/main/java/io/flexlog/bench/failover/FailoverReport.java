package io.flexlog.bench.failover;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The outcome of {@code flexlog bench failover}: per kill, the unavailability window (last
 * acknowledged append before the kill to the first acknowledged after it), and the check that every
 * acknowledged append is readable with its payload afterwards.
 */
record FailoverReport(
    FailoverSettings settings,
    String timing,
    List<Long> windowsMs,
    long acked,
    long lost,
    long failedAppends) {

  long percentile(double p) {
    long[] sorted = windowsMs.stream().mapToLong(Long::longValue).sorted().toArray();
    if (sorted.length == 0) {
      return -1;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "failover: %d kill(s) of global's leader (SIGKILL), %d appends/s, %s%n",
        windowsMs.size(),
        settings.ratePerSecond(),
        timing);
    out.printf(
        Locale.ROOT,
        "unavailability ms: p50 %d  p99 %d  max %d  (each: %s)%n",
        percentile(50),
        percentile(99),
        percentile(100),
        Arrays.toString(windowsMs.toArray()));
    out.printf(
        Locale.ROOT,
        "acknowledged %d, lost %d, appends that failed (not acknowledged) %d%n",
        acked,
        lost,
        failedAppends);
    out.flush();
  }
}
