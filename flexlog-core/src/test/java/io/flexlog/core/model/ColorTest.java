package io.flexlog.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ColorTest {
  private static final String LONGEST = "a".repeat(63);

  @ParameterizedTest
  @ValueSource(strings = {"global", "a", "7", "eu-west.1", "Orders_2024", "x-", "a..b"})
  void acceptsNamesOfLettersDigitsDotsUnderscoresAndDashes(String name) {
    assertThatCode(() -> Color.validateName(name)).doesNotThrowAnyException();
  }

  @Test
  void acceptsNameOf63Characters() {
    assertThatCode(() -> Color.validateName(LONGEST)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {"-eu", ".eu", "_eu", "eu west", "eu/west", "eu:1", "\u00e9t\u00e9", "eu\n", " eu"})
  void rejectsIllegalNamesWithAMessageNamingTheRule(String name) {
    assertThatThrownBy(() -> Color.validateName(name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("illegal color name '" + name + "'")
        .hasMessageContaining("1-63 characters");
  }

  @Test
  void rejectsNameOf64Characters() {
    assertThatThrownBy(() -> Color.validateName(LONGEST + "a"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void constructorValidatesNameAndId() {
    assertThatThrownBy(() -> new Color(1, "bad name", 0, 1))
        .hasMessageStartingWith("illegal color name 'bad name'");
    assertThatThrownBy(() -> new Color(-1, "eu", 0, 1)).hasMessage("color id must be >= 0: -1");
  }

  @Test
  void onlyAColorWithoutParentIsRoot() {
    assertThat(new Color(0, Color.GLOBAL, Color.NO_PARENT, 1).isRoot()).isTrue();
    assertThat(new Color(1, "eu", 0, 1).isRoot()).isFalse();
  }
}
