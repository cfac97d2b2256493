import io.flexlog.client.producer.FlexLogProducer;
import io.flexlog.client.producer.ProducerRecord;
import io.flexlog.client.producer.RecordMetadata;
import io.flexlog.client.producer.Serializers;
import java.util.Properties;

/**
 * Cold start, FlexLog side (flexlog-bench/README.md#cold-start): a fresh JVM builds a producer,
 * sends one record, waits for its acknowledgement, prints the wall-clock time of that moment in ms
 * and exits. The script subtracts the time it launched the JVM.
 */
public final class FlexLogFirstSend {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("bootstrap.servers", args[0]);
    props.setProperty("linger.ms", "0");
    FlexLogProducer<byte[], byte[]> producer =
        new FlexLogProducer<>(props, new Serializers.ByteArray(), new Serializers.ByteArray());
    RecordMetadata metadata =
        producer.send(new ProducerRecord<>(args[1], "cold start".getBytes())).get();
    long ackedMs = System.currentTimeMillis();
    producer.close();
    System.out.println(ackedMs + " sn=" + metadata.sn());
  }
}
