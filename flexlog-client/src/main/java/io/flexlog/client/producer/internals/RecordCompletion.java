package io.flexlog.client.producer.internals;

import io.flexlog.core.error.FlexLogException;

/** What to do when one sent record completes; called once, on the client's event loop. */
public interface RecordCompletion {
  void onAppended(long sn);

  void onFailed(FlexLogException error);
}
