package io.flexlog.spring;

import io.flexlog.client.FlexLog;
import io.flexlog.client.FlexLogAdmin;
import io.flexlog.client.FlexLogConfig;
import io.flexlog.client.producer.FlexLogProducer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;

/**
 * FlexLog as Spring beans (docs/spring-boot.md): the client with the paper's API ({@link FlexLog}),
 * a Kafka-style producer, a factory of consumers and an admin client, all from the {@code
 * flexlog.*} settings ({@link FlexLogProperties}). Each bean backs off when the application defines
 * its own of that type. Nothing connects while the application starts: the producer and the admin
 * client connect at their first call, and the client bean is created when it is first injected or
 * looked up. All are closed with the context.
 */
@AutoConfiguration
@ConditionalOnClass(FlexLog.class)
@EnableConfigurationProperties(FlexLogProperties.class)
public class FlexLogAutoConfiguration {

  /** Connects when first injected: {@code FlexLog.connect} fetches the cluster's topology. */
  @Bean(destroyMethod = "close")
  @Lazy
  @ConditionalOnMissingBean
  public FlexLog flexLog(FlexLogProperties properties) {
    return FlexLog.connect(FlexLogConfig.fromProperties(properties.clientProperties()));
  }

  /** Serializes keys and values as strings unless {@code flexlog.producer.*} names others. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public FlexLogProducer<?, ?> flexLogProducer(FlexLogProperties properties) {
    return new FlexLogProducer<>(properties.producerProperties(), null, null);
  }

  @Bean
  @ConditionalOnMissingBean
  public FlexLogConsumerFactory flexLogConsumerFactory(FlexLogProperties properties) {
    return new FlexLogConsumerFactory(properties.consumerProperties());
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public FlexLogAdmin flexLogAdmin(FlexLogProperties properties) {
    return FlexLogAdmin.create(FlexLogConfig.fromProperties(properties.clientProperties()));
  }
}
