package io.flexlog.client;

/**
 * A record read from FlexLog.
 *
 * @param color the color it was read from
 * @param sn its sequence number in that color
 * @param payload its bytes; a fresh array the caller owns
 */
public record LogRecord(String color, long sn, byte[] payload) {}
