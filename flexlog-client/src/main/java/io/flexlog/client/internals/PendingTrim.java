package io.flexlog.client.internals;

import io.flexlog.client.TrimResult;
import java.util.concurrent.CompletableFuture;

/**
 * One trim in flight: a TRIM to each replica node of the color's subtree, with request ids {@code
 * firstRequestId + node index}. Completes once every node answered; any refusal fails it.
 *
 * <p>Threading: touched only by the client's event loop.
 */
final class PendingTrim {
  final String colorName;
  final int colorId;
  final long sn;
  final int[] nodeIds;
  final long firstRequestId;
  final CompletableFuture<TrimResult> future;
  final long deadlineNs;
  private final boolean[] answered;
  private int outstanding;
  private long trimPoint = Long.MAX_VALUE;
  private long tail;

  PendingTrim(
      String colorName,
      int colorId,
      long sn,
      int[] nodeIds,
      long firstRequestId,
      CompletableFuture<TrimResult> future,
      long deadlineNs) {
    this.colorName = colorName;
    this.colorId = colorId;
    this.sn = sn;
    this.nodeIds = nodeIds;
    this.firstRequestId = firstRequestId;
    this.future = future;
    this.deadlineNs = deadlineNs;
    this.answered = new boolean[nodeIds.length];
    this.outstanding = nodeIds.length;
  }

  int nodeOf(long requestId) {
    return nodeIds[(int) (requestId - firstRequestId)];
  }

  /**
   * Notes one node's answer.
   *
   * @return true when every node has answered
   */
  boolean onAnswer(long requestId, long nodeTrimPoint, long nodeTail) {
    int index = (int) (requestId - firstRequestId);
    if (!answered[index]) {
      answered[index] = true;
      outstanding--;
      trimPoint = Math.min(trimPoint, nodeTrimPoint);
      tail = Math.max(tail, nodeTail);
    }
    return outstanding == 0;
  }

  TrimResult result() {
    return new TrimResult(colorName, trimPoint, tail);
  }

  /** The nodes that have not answered yet, for error messages. */
  String unanswered() {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < nodeIds.length; i++) {
      if (!answered[i]) {
        out.append(out.length() > 1 ? ", " : "").append(nodeIds[i]);
      }
    }
    return out.append(']').toString();
  }
}
