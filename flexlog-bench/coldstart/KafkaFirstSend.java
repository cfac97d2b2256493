import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Cold start, Kafka side: as FlexLogFirstSend, with a KafkaProducer (acks=all, linger.ms=0) and its
 * first send().get().
 */
public final class KafkaFirstSend {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("bootstrap.servers", args[0]);
    props.setProperty("acks", "all");
    props.setProperty("linger.ms", "0");
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    RecordMetadata metadata =
        producer.send(new ProducerRecord<>(args[1], "cold start".getBytes())).get();
    long ackedMs = System.currentTimeMillis();
    producer.close();
    System.out.println(ackedMs + " offset=" + metadata.offset());
  }
}
