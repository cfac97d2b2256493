package io.flexlog.server.cli;

import io.flexlog.client.LogRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

/**
 * How {@code read} and {@code tail} print records ({@code --format}). {@code read} prints one
 * record's payload; {@code tail} one line per record with its SN.
 *
 * <ul>
 *   <li>{@code text}: the payload as UTF-8 ({@code tail}: {@code SN<TAB>length<TAB>payload}, the
 *       payload as hex when it is not printable UTF-8, see {@link TailCommand});
 *   <li>{@code hex}: the whole payload in lowercase hex;
 *   <li>{@code raw}: the payload's bytes exactly as stored ({@code read}: nothing else, not even a
 *       newline; {@code tail}: each payload followed by a newline);
 *   <li>{@code json}: one object per record: {@code color}, {@code sn}, {@code length}, {@code
 *       payload_base64}, and {@code payload_utf8} when the payload is valid UTF-8.
 * </ul>
 */
enum RecordFormat {
  TEXT,
  HEX,
  RAW,
  JSON;

  /** The description shared by the commands' {@code --format} option. */
  static final String HELP =
      "text, hex, raw (the bytes as stored) or json (one object per record, the payload in"
          + " base64) (default: text).";

  /** Parses {@code --format}, case-insensitively. */
  static RecordFormat parse(String value) {
    try {
      return valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--format must be text, hex, raw or json, got '" + value + "'");
    }
  }

  /** What {@code read} prints for one record. */
  void writeRecord(LogRecord record, OutputStream out) throws IOException {
    byte[] payload = record.payload();
    switch (this) {
      case TEXT -> line(out, new String(payload, StandardCharsets.UTF_8));
      case HEX -> line(out, HexFormat.of().formatHex(payload));
      case RAW -> out.write(payload);
      case JSON -> line(out, json(record));
    }
    out.flush();
  }

  /** What {@code tail} prints for one record. */
  void writeLine(LogRecord record, OutputStream out) throws IOException {
    byte[] payload = record.payload();
    switch (this) {
      case TEXT -> line(out, TailCommand.format(record));
      case HEX -> line(out, record.sn() + "\t" + payload.length + "\t" + hex(payload));
      case RAW -> {
        out.write(payload);
        out.write('\n');
      }
      case JSON -> line(out, json(record));
    }
    out.flush();
  }

  private static String hex(byte[] payload) {
    return HexFormat.of().formatHex(payload);
  }

  private static void line(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.write('\n');
  }

  static String json(LogRecord record) {
    byte[] payload = record.payload();
    StringBuilder json = new StringBuilder(64 + payload.length * 2);
    json.append("{\"color\":");
    quote(json, record.color());
    json.append(",\"sn\":").append(record.sn());
    json.append(",\"length\":").append(payload.length);
    json.append(",\"payload_base64\":\"")
        .append(Base64.getEncoder().encodeToString(payload))
        .append('"');
    String text = utf8(payload);
    if (text != null) {
      json.append(",\"payload_utf8\":");
      quote(json, text);
    }
    return json.append('}').toString();
  }

  /** The payload decoded as UTF-8, or null when it is not valid UTF-8. */
  static String utf8(byte[] payload) {
    try {
      CharBuffer text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(payload));
      return text.toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  // RFC 8259 section 7: quote, backslash and control characters are escaped.
  private static void quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
