package io.flexlog.bench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The JSON files of {@code --json}, built as Jackson trees and written compactly on one line.
 * Fields keep the order they are put in. Decimals are written with a fixed number of places, the
 * precision the text report shows ({@code 2.000}, not {@code 2.0}); a value that is not a finite
 * number is written as {@code null}.
 */
public final class Json {
  private static final JsonMapper MAPPER =
      JsonMapper.builder().enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN).build();

  /** Places of {@link #decimal(double)}: seconds, rates and latencies in every report. */
  public static final int DEFAULT_PLACES = 3;

  private Json() {}

  /** A new, empty object. */
  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** A new, empty array. */
  public static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** {@code value} with {@link #DEFAULT_PLACES} decimals, or null if it is not finite. */
  public static JsonNode decimal(double value) {
    return decimal(value, DEFAULT_PLACES);
  }

  /** {@code value} rounded half up to {@code places} decimals, or null if it is not finite. */
  public static JsonNode decimal(double value, int places) {
    if (!Double.isFinite(value)) {
      return JsonNodeFactory.instance.nullNode();
    }
    BigDecimal rounded = BigDecimal.valueOf(value).setScale(places, RoundingMode.HALF_UP);
    return JsonNodeFactory.instance.numberNode(rounded);
  }

  /** {@code nanos} as seconds with {@link #DEFAULT_PLACES} decimals. */
  public static JsonNode seconds(long nanos) {
    return decimal(nanos / 1e9);
  }

  /** {@code node} as compact JSON (no spaces, no line breaks). */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      // A tree of plain nodes always serializes; failing here is a bug, not an outcome.
      throw new IllegalStateException("cannot write a JSON tree", e);
    }
  }
}
