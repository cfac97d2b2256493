package io.flexlog.core.config;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The rule a setting's typed value must follow. {@link #check} returns null for a valid value, else
 * the rule in words that follow the key ({@code must be > 0}), so that {@link
 * ConfigException#invalid} reads {@code read-hold-ms must be > 0, got 0}; {@link #describe} gives
 * the valid values for the generated docs.
 *
 * @param <T> the type of the values checked
 */
public interface Validator<T> {
  /** Null when {@code value} is valid, else the rule it breaks: "must be at least 1024". */
  String check(T value);

  /** The valid values, for the docs: "&gt;= 1024", "auto, llpl, mapped". */
  String describe();

  /** A rule from a predicate, its wording and its description. */
  static <T> Validator<T> of(Predicate<? super T> ok, String rule, String describe) {
    return explain(value -> ok.test(value) ? null : rule, describe);
  }

  /** A rule whose wording depends on the value: the function returns null when it is valid. */
  static <T> Validator<T> explain(Function<? super T, String> rule, String describe) {
    return new Validator<>() {
      @Override
      public String check(T value) {
        return rule.apply(value);
      }

      @Override
      public String describe() {
        return describe;
      }
    };
  }

  /** No rule: every value of the type. */
  static <T> Validator<T> any() {
    return of(value -> true, "", "");
  }

  /** Integers above zero. */
  static Validator<Number> positive() {
    return of(n -> n.longValue() > 0, "must be > 0", "> 0");
  }

  /** Integers of at least {@code min}. */
  static Validator<Number> atLeast(long min) {
    return of(n -> n.longValue() >= min, "must be at least " + min, ">= " + min);
  }

  /** Integers in {@code [min, max]}. */
  static Validator<Number> between(long min, long max) {
    String range = "[" + min + ", " + max + "]";
    return of(n -> n.longValue() >= min && n.longValue() <= max, "must be in " + range, range);
  }

  /** Durations above zero. */
  static Validator<Duration> positiveDuration() {
    return of(d -> !d.isNegative() && !d.isZero(), "must be > 0", "> 0");
  }

  /** Durations of at least {@code min}, worded in milliseconds as the keys are. */
  static Validator<Duration> atLeast(Duration min) {
    long ms = min.toMillis();
    return of(d -> d.compareTo(min) >= 0, "must be at least " + ms, ">= " + ms);
  }

  /** One of {@code values} (compared as given: {@link ConfigType#ENUM} lower-cases first). */
  static Validator<String> oneOf(List<String> values) {
    String list = String.join(", ", values);
    return of(values::contains, "must be one of " + list, list);
  }

  /** A string that is not blank, or a collection with at least one element. */
  static Validator<Object> nonEmpty() {
    return of(
        v -> v instanceof Collection<?> c ? !c.isEmpty() : !String.valueOf(v).isBlank(),
        "must not be empty",
        "non-empty");
  }

  /** Every rule of {@code first} and then of {@code second}. */
  static <T> Validator<T> both(Validator<? super T> first, Validator<? super T> second) {
    String describe =
        first.describe().isEmpty()
            ? second.describe()
            : second.describe().isEmpty()
                ? first.describe()
                : first.describe() + "; " + second.describe();
    return explain(
        value -> {
          String broken = first.check(value);
          return broken != null ? broken : second.check(value);
        },
        describe);
  }
}
