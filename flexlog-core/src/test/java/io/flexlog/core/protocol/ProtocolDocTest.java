package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.record.RecordFormatDescriptor;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/protocol.md} true to the code: every frame type and error code with its number,
 * every descriptor, and every offset quoted in a field table. Adding a frame type, an error code or
 * a descriptor without documenting it fails this test.
 */
class ProtocolDocTest {
  /** A code table row: {@code | 12 | `SUBSCRIBE` | ...}. */
  private static final Pattern CODE_ROW = Pattern.compile("^\\|\\s*(\\d+)\\s*\\|\\s*`([A-Z_]+)`");

  /** A field table row ending in a descriptor constant: {@code | 8 | ... | `X.Y_OFFSET` |}. */
  private static final Pattern CONSTANT_ROW =
      Pattern.compile("^\\|\\s*(-?\\d+)\\s*\\|.*\\|\\s*`(\\w+)\\.(\\w+)`\\s*\\|\\s*$");

  private static final Path SOURCES = Path.of("src/main/java/io/flexlog/core/protocol");

  private static String doc;
  private static List<String> lines;

  @BeforeAll
  static void readDoc() throws IOException {
    Path path = Path.of("../docs/protocol.md");
    if (!Files.exists(path)) {
      path = Path.of("docs/protocol.md");
    }
    doc = Files.readString(path);
    lines = doc.lines().toList();
  }

  @Test
  void shouldListEveryFrameTypeWithItsCode() throws IllegalAccessException {
    Map<String, Integer> inCode = new TreeMap<>();
    for (Field field : MessageType.class.getDeclaredFields()) {
      int modifiers = field.getModifiers();
      if (field.getType() == byte.class
          && Modifier.isStatic(modifiers)
          && Modifier.isFinal(modifiers)) {
        inCode.put(field.getName(), (int) field.getByte(null));
      }
    }

    Map<String, Integer> inDoc = codeTable("## Frame types");

    assertThat(inCode).isNotEmpty();
    assertThat(inDoc).isEqualTo(inCode);
    inDoc.forEach(
        (name, code) -> assertThat(MessageType.name(code.byteValue())).as(name).isEqualTo(name));
  }

  @Test
  void shouldGiveEveryFrameTypeALayoutSection() {
    List<String> headings = lines.stream().filter(line -> line.startsWith("### ")).toList();
    for (String name : codeTable("## Frame types").keySet()) {
      assertThat(headings)
          .as("a '### ' heading naming %s", name)
          .anyMatch(heading -> Pattern.compile("\\b" + name + "\\b").matcher(heading).find());
    }
  }

  @Test
  void shouldListEveryErrorCodeWithItsNumber() {
    Map<String, Integer> inCode = new TreeMap<>();
    for (ErrorCode code : ErrorCode.values()) {
      inCode.put(code.name(), code.code());
    }

    assertThat(codeTable("## Error codes")).isEqualTo(inCode);
  }

  @Test
  void shouldDocumentEveryDescriptor() throws IOException {
    List<String> descriptors;
    try (Stream<Path> files = Files.list(SOURCES)) {
      descriptors =
          files
              .map(file -> file.getFileName().toString())
              .filter(name -> name.endsWith("Descriptor.java"))
              .map(name -> name.substring(0, name.length() - ".java".length()))
              .sorted()
              .toList();
    }

    assertThat(descriptors).isNotEmpty();
    for (String descriptor : descriptors) {
      assertThat(doc).as("protocol.md names %s", descriptor).contains("`" + descriptor);
    }
  }

  @Test
  void shouldQuoteOffsetsAndValuesThatMatchTheDescriptors() throws ReflectiveOperationException {
    List<String> checked = new ArrayList<>();
    for (String line : lines) {
      Matcher row = CONSTANT_ROW.matcher(line);
      if (!row.find()) {
        continue;
      }
      long documented = Long.parseLong(row.group(1));
      String className = row.group(2);
      String constant = row.group(3);
      Field field = descriptorClass(className).getDeclaredField(constant);
      field.setAccessible(true);
      long actual = ((Number) field.get(null)).longValue();
      assertThat(documented).as("%s.%s in: %s", className, constant, line).isEqualTo(actual);
      checked.add(className + "." + constant);
    }

    assertThat(checked).hasSizeGreaterThan(100).contains("FrameDescriptor.REQUEST_ID_OFFSET");
  }

  @Test
  void shouldQuoteTheFrameMagicAndVersion() {
    String magic = String.format("`0x%04X`", FrameDescriptor.MAGIC & 0xFFFF);

    assertThat(doc).contains("magic " + magic);
    assertThat(doc).contains("protocol version, `" + FrameDescriptor.VERSION + "`");
    assertThat(doc).contains("header length is " + FrameDescriptor.HEADER_LENGTH);
  }

  /** A descriptor of the wire protocol, or the record format's. */
  private static Class<?> descriptorClass(String simpleName) throws ClassNotFoundException {
    if (simpleName.equals(RecordFormatDescriptor.class.getSimpleName())) {
      return RecordFormatDescriptor.class;
    }
    return Class.forName(ProtocolDocTest.class.getPackageName() + "." + simpleName);
  }

  /** The {@code | code | `NAME` |} rows of the section under {@code heading}, by name. */
  private static Map<String, Integer> codeTable(String heading) {
    int start = lines.indexOf(heading);
    assertThat(start).as("section %s", heading).isNotNegative();
    Map<String, Integer> table = new TreeMap<>();
    for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      Matcher row = CODE_ROW.matcher(lines.get(i));
      if (row.find()) {
        Integer previous = table.put(row.group(2), Integer.parseInt(row.group(1)));
        assertThat(previous).as("%s listed twice under %s", row.group(2), heading).isNull();
      }
    }
    return table;
  }
}
