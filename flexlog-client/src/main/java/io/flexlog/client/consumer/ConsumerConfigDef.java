package io.flexlog.client.consumer;

import io.flexlog.core.config.ConfigDef;
import io.flexlog.core.config.ConfigKey;
import io.flexlog.core.config.ConfigKey.Importance;
import io.flexlog.core.config.Validator;
import java.time.Duration;
import java.util.List;

/**
 * The registry of {@link FlexLogConsumer}'s own properties, with Kafka's names and meanings where
 * they match. A consumer's properties may also hold every client key of {@link
 * io.flexlog.client.ClientConfigDef} ({@code bootstrap.servers}, timeouts, ...); any other key is
 * rejected with its name. {@code docs/configuration.md} is generated from it.
 */
public final class ConsumerConfigDef {
  public static final ConfigDef DEF = ConfigDef.properties("consumer config");

  /** The longest group id: the group's color, {@code flexlog.group.<id>}, has at most 63 chars. */
  public static final int MAX_GROUP_ID_CHARS = 63 - ConsumerConfig.GROUP_COLOR_PREFIX.length();

  public static final ConfigKey<String> GROUP_ID =
      DEF.define(
          ConfigKey.string("group.id", "")
              .validator(Validator.explain(ConsumerConfigDef::groupIdProblem, "a group id"))
              .importance(Importance.HIGH)
              .doc(
                  "The consumer group: members of one group split the shards of the colors they"
                      + " subscribe to, and share committed positions, stored in the group's"
                      + " color flexlog.group.<group.id>. Empty: no group (assign only, no"
                      + " commits). 1-"
                      + MAX_GROUP_ID_CHARS
                      + " letters, digits, '.', '_' or '-'."));

  public static final ConfigKey<String> CLIENT_ID =
      DEF.define(
          ConfigKey.string("client.id", "")
              .doc(
                  "A name for this consumer in logs and in the group's member ids; empty: one is"
                      + " made up (consumer-<n>)."));

  public static final ConfigKey<String> AUTO_OFFSET_RESET =
      DEF.define(
          ConfigKey.oneOf("auto.offset.reset", "latest", List.of("earliest", "latest", "none"))
              .importance(Importance.HIGH)
              .doc(
                  "Where to start a color shard without a committed position, or whose position"
                      + " was trimmed: earliest (the first record still stored), latest (after the"
                      + " color's tail as FlexLog.tail reports it), none (throw"
                      + " NoPositionException / PositionOutOfRangeException)."));

  public static final ConfigKey<Boolean> ENABLE_AUTO_COMMIT =
      DEF.define(
          ConfigKey.bool("enable.auto.commit", true)
              .doc(
                  "Commit the positions of what poll returned every auto.commit.interval.ms (from"
                      + " within poll, and on close). Needs group.id."));

  public static final ConfigKey<Duration> AUTO_COMMIT_INTERVAL =
      DEF.define(
          ConfigKey.duration("auto.commit.interval.ms", Duration.ofSeconds(5))
              .validator(Validator.positiveDuration())
              .doc("How often enable.auto.commit commits."));

  public static final ConfigKey<Integer> MAX_POLL_RECORDS =
      DEF.define(
          ConfigKey.integer("max.poll.records", 500)
              .validator(Validator.between(1, 1_000_000))
              .doc("The most records one poll returns."));

  public static final ConfigKey<Duration> MAX_POLL_INTERVAL =
      DEF.define(
          ConfigKey.duration("max.poll.interval.ms", Duration.ofMinutes(5))
              .validator(Validator.positiveDuration())
              .doc(
                  "A group member that does not call poll for this long leaves the group (its"
                      + " shards go to the others); its next poll joins again."));

  public static final ConfigKey<Duration> SESSION_TIMEOUT =
      DEF.define(
          ConfigKey.duration("session.timeout.ms", Duration.ofSeconds(10))
              .validator(Validator.positiveDuration())
              .importance(Importance.HIGH)
              .doc(
                  "A group member whose heartbeats stop reaching the group log for this long (a"
                      + " crash, a partition) is removed by the other members and its shards are"
                      + " reassigned: the bound on how long a dead member's shards stay unread."));

  public static final ConfigKey<Duration> HEARTBEAT_INTERVAL =
      DEF.define(
          ConfigKey.duration("heartbeat.interval.ms", Duration.ofSeconds(3))
              .validator(Validator.positiveDuration())
              .doc(
                  "How often a member appends a heartbeat to the group log. Below"
                      + " session.timeout.ms, typically a third of it."));

  public static final ConfigKey<Long> FETCH_MIN_BYTES =
      DEF.define(
          ConfigKey.dataSize("fetch.min.bytes", 1L)
              .validator(Validator.atLeast(1))
              .doc(
                  "A poll that has some records but fewer bytes than this waits up to"
                      + " fetch.max.wait.ms (within its own timeout) for more."));

  public static final ConfigKey<Duration> FETCH_MAX_WAIT =
      DEF.define(
          ConfigKey.duration("fetch.max.wait.ms", Duration.ofMillis(500))
              .doc("How long a poll waits for fetch.min.bytes once it has records."));

  public static final ConfigKey<Long> FETCH_MAX_BYTES =
      DEF.define(
          ConfigKey.dataSize("fetch.max.bytes", 8L << 20)
              .validator(Validator.atLeast(1024))
              .doc(
                  "The window of each color shard's stream: the most bytes of records a replica"
                      + " may send ahead of what poll returned. Larger windows move larger batches"
                      + " per round trip when catching up; memory is this times the shards read."));

  public static final ConfigKey<String> KEY_DESERIALIZER =
      DEF.define(
          ConfigKey.string("key.deserializer", Deserializers.ByteArrayDeserializer.class.getName())
              .doc(
                  "Class name of the key's Deserializer (public, no-argument constructor)."
                      + " Records without a key get a null key; the deserializer is not called."));

  public static final ConfigKey<String> VALUE_DESERIALIZER =
      DEF.define(
          ConfigKey.string(
                  "value.deserializer", Deserializers.ByteArrayDeserializer.class.getName())
              .importance(Importance.HIGH)
              .doc(
                  "Class name of the value's Deserializer (public, no-argument constructor), for"
                      + " example io.flexlog.client.consumer.Deserializers$StringDeserializer."));

  private ConsumerConfigDef() {}

  private static String groupIdProblem(String id) {
    if (id.isEmpty()) {
      return null;
    }
    if (id.length() > MAX_GROUP_ID_CHARS
        || !id.chars()
            .allMatch(c -> Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-')
        || !Character.isLetterOrDigit(id.charAt(0))) {
      return "must be 1-"
          + MAX_GROUP_ID_CHARS
          + " ASCII letters, digits, '.', '_' or '-', starting with a letter or digit";
    }
    return id.chars().allMatch(c -> c < 128) ? null : "must be ASCII";
  }
}
