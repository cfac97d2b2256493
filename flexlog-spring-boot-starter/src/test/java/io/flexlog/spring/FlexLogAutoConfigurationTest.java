package io.flexlog.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.LogRecord;
import io.flexlog.client.NewColor;
import io.flexlog.client.consumer.ColorShard;
import io.flexlog.client.consumer.ConsumerRecord;
import io.flexlog.client.consumer.FlexLogConsumer;
import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.RecordMetadata;
import io.flexlog.core.config.ConfigException;
import io.flexlog.core.testing.FreePorts;
import io.flexlog.replica.storage.DurabilityMode;
import io.flexlog.replica.storage.StorageEngines;
import io.flexlog.server.dev.DevCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The starter's beans in application contexts, against an embedded dev cluster. */
class FlexLogAutoConfigurationTest {
  @TempDir static Path data;
  private static DevCluster cluster;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(FlexLogAutoConfiguration.class));

  @BeforeAll
  static void start() throws Exception {
    int port = FreePorts.consecutive(DevCluster.nodeCount(DevCluster.Layout.FLAT));
    cluster =
        DevCluster.start(
            new DevCluster.Options(
                data,
                port,
                StorageEngines.MAPPED,
                DurabilityMode.PROCESS,
                32L << 20,
                DevCluster.Layout.FLAT,
                0),
            new SimpleMeterRegistry(),
            new PrintStream(new ByteArrayOutputStream()));
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void shouldCreateAColorProduceAndConsumeThroughTheBeans() {
    runner
        .withPropertyValues(
            "flexlog.bootstrap-servers=" + cluster.bootstrap(),
            "flexlog.client-id=orders-service",
            "flexlog.producer.linger.ms=1",
            "flexlog.consumer.auto.offset.reset=earliest")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              context.getBean(FlexLogAdmin.class).createColor(NewColor.of("spring", "global"));

              @SuppressWarnings("unchecked")
              FlexLogProducer<String, String> producer = context.getBean(FlexLogProducer.class);
              RecordMetadata sent =
                  producer
                      .send(new ProducerRecord<>("spring", "order-7", "paid"))
                      .get(30, TimeUnit.SECONDS);
              assertThat(sent.color()).isEqualTo("spring");

              FlexLogConsumerFactory factory = context.getBean(FlexLogConsumerFactory.class);
              assertThat(factory.properties()).containsEntry("client.id", "orders-service");
              try (FlexLogConsumer<String, String> consumer = factory.createConsumer()) {
                consumer.assign(List.of(ColorShard.wholeColor("spring")));
                ConsumerRecord<String, String> got = pollOne(consumer);
                assertThat(got.sn()).isEqualTo(sent.sn());
                assertThat(got.key()).isEqualTo("order-7");
                assertThat(got.value()).isEqualTo("paid");
              }

              Optional<LogRecord> read = context.getBean(FlexLog.class).read("spring", sent.sn());
              assertThat(read).isPresent();
              assertThat(new String(read.get().payload(), StandardCharsets.UTF_8))
                  .isEqualTo("paid");
            });
  }

  @Test
  void shouldInjectTheProducerWithTheTypesItsSerializersMake() {
    runner
        .withPropertyValues("flexlog.bootstrap-servers=" + cluster.bootstrap())
        .withUserConfiguration(OrderService.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OrderService.class).producer)
                  .isSameAs(context.getBean(FlexLogProducer.class));
            });
  }

  @Test
  void shouldNotConnectWhileTheApplicationStarts() {
    int closedPort = FreePorts.consecutive(1);
    runner
        .withPropertyValues("flexlog.bootstrap-servers=127.0.0.1:" + closedPort)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(FlexLogProducer.class);
              assertThat(context).hasSingleBean(FlexLogAdmin.class);
              assertThat(context).hasSingleBean(FlexLogConsumerFactory.class);
              assertThat(context.getBeanFactory().containsSingleton("flexLog"))
                  .as("the lazy client bean is not created before its first use")
                  .isFalse();
            });
  }

  @Test
  void shouldStopTheApplicationNamingAnUnknownOrForbiddenSetting() {
    runner
        .withPropertyValues("flexlog.producer.acks=1")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("acks"));
    runner
        .withPropertyValues("flexlog.consumer.fetch.min.bites=1")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("fetch.min.bites"));
  }

  @Test
  void shouldBackOffWhenTheApplicationDefinesItsOwnProducer() {
    runner
        .withUserConfiguration(OwnProducer.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(FlexLogProducer.class);
              assertThat(context.getBean(FlexLogProducer.class))
                  .isSameAs(context.getBean(OwnProducer.class).producer);
            });
  }

  @Test
  void shouldConfigureNothingWithoutTheClientOnTheClassPath() {
    runner
        .withClassLoader(new FilteredClassLoader(FlexLog.class))
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(FlexLogProducer.class);
              assertThat(context).doesNotHaveBean(FlexLogConsumerFactory.class);
              assertThat(context).doesNotHaveBean(FlexLogProperties.class);
            });
  }

  @Test
  void shouldConfigureASpringBootApplicationFromItsYaml() throws Exception {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .properties(
                "spring.config.location=classpath:flexlog-starter-test.yml",
                "flexlog.bootstrap-servers=" + cluster.bootstrap())
            .run()) {
      assertThat(context.getBean(FlexLogConsumerFactory.class).properties())
          .containsEntry("group.id", "yaml-group")
          .containsEntry("client.id", "yaml-app")
          .containsEntry("auto.offset.reset", "earliest");
      assertThat(context.getBean(FlexLogProperties.class).getProducer())
          .containsEntry("linger.ms", "2")
          .containsEntry("compression.type", "lz4");
      @SuppressWarnings("unchecked")
      FlexLogProducer<String, String> producer = context.getBean(FlexLogProducer.class);
      RecordMetadata sent =
          producer.send(new ProducerRecord<>("global", "yaml")).get(30, TimeUnit.SECONDS);
      assertThat(sent.serializedValueSize()).isEqualTo(4);
    }
  }

  @EnableAutoConfiguration
  @Configuration(proxyBeanMethods = false)
  static class App {}

  private static <K, V> ConsumerRecord<K, V> pollOne(FlexLogConsumer<K, V> consumer) {
    List<ConsumerRecord<K, V>> got = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (got.isEmpty() && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(got::add);
    }
    assertThat(got).as("records polled within 30 s").isNotEmpty();
    return got.get(0);
  }

  @Configuration(proxyBeanMethods = false)
  static class OrderService {
    final FlexLogProducer<String, String> producer;

    OrderService(FlexLogProducer<String, String> producer) {
      this.producer = producer;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnProducer {
    final FlexLogProducer<byte[], byte[]> producer =
        new FlexLogProducer<>(
            Map.of(
                "key.serializer", "io.flexlog.client.producer.Serializers$ByteArray",
                "value.serializer", "io.flexlog.client.producer.Serializers$ByteArray"),
            null,
            null);

    @Bean
    FlexLogProducer<byte[], byte[]> myProducer() {
      return producer;
    }
  }
}
