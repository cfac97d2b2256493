package io.flexlog.spring;

import io.flexlog.client.consumer.Deserializers;
import io.flexlog.client.producer.Serializers;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code flexlog.*} settings of a Spring application (docs/spring-boot.md). The three maps take
 * the client's own keys, as in {@code FlexLogConfig}, {@code FlexLogProducer} and {@code
 * FlexLogConsumer} ({@code linger.ms}, {@code group.id}, ...); an unknown key or a bad value stops
 * the application at its start with the key named.
 */
@ConfigurationProperties(prefix = "flexlog")
public class FlexLogProperties {
  /** Comma-separated host:port of any nodes of the cluster. */
  private String bootstrapServers = "127.0.0.1:7070";

  /** client.id of the producer and of every consumer, unless their own settings name one. */
  private String clientId;

  /** Settings of the FlexLog client bean, e.g. delivery.timeout.ms. */
  private Map<String, String> client = new LinkedHashMap<>();

  /** Settings of the producer bean, e.g. linger.ms; the serializers default to strings. */
  private Map<String, String> producer = new LinkedHashMap<>();

  /** Settings of every consumer the factory creates, e.g. group.id; strings by default. */
  private Map<String, String> consumer = new LinkedHashMap<>();

  public String getBootstrapServers() {
    return bootstrapServers;
  }

  public void setBootstrapServers(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  public String getClientId() {
    return clientId;
  }

  public void setClientId(String clientId) {
    this.clientId = clientId;
  }

  public Map<String, String> getClient() {
    return client;
  }

  public void setClient(Map<String, String> client) {
    this.client = client;
  }

  public Map<String, String> getProducer() {
    return producer;
  }

  public void setProducer(Map<String, String> producer) {
    this.producer = producer;
  }

  public Map<String, String> getConsumer() {
    return consumer;
  }

  public void setConsumer(Map<String, String> consumer) {
    this.consumer = consumer;
  }

  /** The FlexLog client's settings: bootstrap.servers, then the {@code client} map. */
  Properties clientProperties() {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrapServers);
    client.forEach(p::setProperty);
    return p;
  }

  /**
   * The producer's settings: the common ones, string serializers, then the {@code producer} map.
   */
  Map<String, Object> producerProperties() {
    Map<String, Object> p = common();
    p.put("key.serializer", Serializers.String.class.getName());
    p.put("value.serializer", Serializers.String.class.getName());
    p.putAll(producer);
    return p;
  }

  /**
   * A consumer's settings: the common ones, string deserializers, then the {@code consumer} map.
   */
  Map<String, Object> consumerProperties() {
    Map<String, Object> p = common();
    p.put("key.deserializer", Deserializers.StringDeserializer.class.getName());
    p.put("value.deserializer", Deserializers.StringDeserializer.class.getName());
    p.putAll(consumer);
    return p;
  }

  private Map<String, Object> common() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("bootstrap.servers", bootstrapServers);
    if (clientId != null && !clientId.isBlank()) {
      p.put("client.id", clientId);
    }
    return p;
  }
}
