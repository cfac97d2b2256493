package io.flexlog.client;

import io.flexlog.core.error.FlexLogException;

/**
 * Receives the records of a subscription (see {@link FlexLog#subscribe(String, long,
 * RecordHandler)}), one at a time, in SN order, on the subscription's own thread. The next record
 * is handed over when {@link #onRecord} returns, which is also when its bytes count as consumed for
 * flow control: a slow handler slows the replicas' streams down, it does not fill memory.
 */
@FunctionalInterface
public interface RecordHandler {
  void onRecord(LogRecord record);

  /**
   * The subscription ended with an error and delivers nothing more: a typed {@link
   * FlexLogException} from the cluster, or one wrapping what {@link #onRecord} threw. Not called
   * when the application closes the subscription.
   */
  default void onError(FlexLogException error) {}
}
