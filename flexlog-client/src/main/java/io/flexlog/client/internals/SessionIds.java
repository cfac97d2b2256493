package io.flexlog.client.internals;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The random 64-bit id a client sends with its appends so that replicas can tell its retries from
 * new appends (the token's session id, docs/protocol.md). Read straight from the kernel's {@code
 * /dev/urandom} where there is one: that is where {@link SecureRandom} gets it on Linux too, but
 * without first loading the JDK's security providers, a visible part of a fresh client's time to
 * its first append. Elsewhere, {@link SecureRandom}.
 */
final class SessionIds {
  private static final String URANDOM = "/dev/urandom";

  private SessionIds() {}

  static long random() {
    try (InputStream in = new FileInputStream(URANDOM)) {
      byte[] bytes = in.readNBytes(Long.BYTES);
      if (bytes.length == Long.BYTES) {
        return ByteBuffer.wrap(bytes).getLong();
      }
    } catch (IOException | SecurityException e) {
      // no /dev/urandom here: the JDK's generator below
    }
    return new SecureRandom().nextLong();
  }
}
