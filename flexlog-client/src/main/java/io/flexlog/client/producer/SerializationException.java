package io.flexlog.client.producer;

import io.flexlog.core.error.FlexLogException;

/** A key or value serializer threw; the record was not sent. */
public final class SerializationException extends FlexLogException {
  public SerializationException(String message, Throwable cause) {
    super(message, cause);
  }
}
