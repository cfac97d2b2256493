package io.flexlog.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.flexlog.core.error.ErrorCode;
import io.flexlog.core.model.Color;
import io.flexlog.core.model.NodeAddress;
import io.flexlog.core.model.Shard;
import io.flexlog.core.model.Topology;
import io.flexlog.core.protocol.WireMessage.Bytes;
import io.flexlog.core.protocol.WireMessage.OrderEntry;
import io.flexlog.core.protocol.WireMessage.TokenPair;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each message encoded by its descriptor must equal bytes written out by hand from the documented
 * layout (big-endian; frame = int32 length after this field, int16 magic 0xF10C, int8 version 1,
 * int8 type, int64 request id, body); and those hand-written bytes, fed through {@link
 * FrameDecoder}, must read back as the original values through every accessor.
 *
 * <p>Field values are distinct byte patterns (0x31323334, 0x41424344, ...) so that swapping two
 * fields or shifting an offset changes the bytes. Spaces in the expected hex separate fields.
 */
class FrameGoldenBytesTest {
  private static final ByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  private static final long REQUEST_ID = 0x8182838485868788L;
  private static final long SESSION = 0x1112131415161718L;
  private static final long SEQUENCE = 0x2122232425262728L;
  private static final int COLOR = 0x31323334;
  private static final int SHARD = 0x41424344;
  private static final int REPLICA = 0x51525354;
  private static final long SN = 0x6162636465666768L;
  private static final long BOUND = 0x7172737475767778L;

  @Test
  void appendHeaderAndPayloadWrittenAsTwoBuffersMatchDocumentedLayout() {
    WireMessage.Append append =
        new WireMessage.Append(REQUEST_ID, SESSION, SEQUENCE, COLOR, SHARD, Bytes.of("hello"));
    String header =
        "0000002d f10c 01 01 8182838485868788"
            + " 1112131415161718 2122232425262728 31323334 41424344 00000005";
    String payload = "68656c6c6f";

    ByteBuf encodedHeader = append.encodeHeader(ALLOC);
    try {
      assertThat(ByteBufUtil.hexDump(encodedHeader)).isEqualTo(compact(header));
    } finally {
      encodedHeader.release();
    }
    assertDecodesInChunks(append, header, payload);
  }

  @Test
  void appendAckMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.AppendAck(REQUEST_ID, SESSION, SEQUENCE, SN, COLOR, REPLICA),
        "0000002c f10c 01 02 8182838485868788"
            + " 1112131415161718 2122232425262728 6162636465666768 31323334 51525354");
  }

  @Test
  void orderRequestMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.OrderRequest(
            COLOR,
            SHARD,
            REPLICA,
            List.of(
                new TokenPair(SESSION, SEQUENCE),
                new TokenPair(0x9192939495969798L, 0xa1a2a3a4a5a6a7a8L))),
        "0000003c f10c 01 03 0000000000000000 31323334 41424344 51525354 00000002"
            + " 1112131415161718 2122232425262728 9192939495969798 a1a2a3a4a5a6a7a8");
  }

  @Test
  void orderRequestWithNoTokensMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.OrderRequest(COLOR, SHARD, REPLICA, List.of()),
        "0000001c f10c 01 03 0000000000000000 31323334 41424344 51525354 00000000");
  }

  @Test
  void orderResponseMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.OrderResponse(
            COLOR,
            SHARD,
            List.of(
                new OrderEntry(SESSION, SEQUENCE, SN),
                new OrderEntry(0x9192939495969798L, 0xa1a2a3a4a5a6a7a8L, 0xb1b2b3b4b5b6b7b8L))),
        "00000048 f10c 01 04 0000000000000000 31323334 41424344 00000002"
            + " 1112131415161718 2122232425262728 6162636465666768"
            + " 9192939495969798 a1a2a3a4a5a6a7a8 b1b2b3b4b5b6b7b8");
  }

  @Test
  void watermarkMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Watermark(COLOR, SN),
        "00000018 f10c 01 05 0000000000000000 31323334 6162636465666768");
  }

  @Test
  void readMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Read(REQUEST_ID, COLOR, SN),
        "00000018 f10c 01 06 8182838485868788 31323334 6162636465666768");
  }

  @Test
  void readResponseFoundCarriesPayloadAfterDocumentedHeader() {
    WireMessage.ReadResponse found =
        new WireMessage.ReadResponse(
            REQUEST_ID, ReadResponseDescriptor.FOUND, COLOR, SN, BOUND, Bytes.of("abc"));
    String header =
        "0000002b f10c 01 07 8182838485868788"
            + " 00 000000 31323334 6162636465666768 7172737475767778 00000003";
    assertGolden(found, header + " 616263");
    assertDecodesInChunks(found, header, "616263");
  }

  @ParameterizedTest(name = "status {0}")
  @CsvSource({
    "1, 00000028 f10c 01 07 8182838485868788 01 000000 31323334 6162636465666768 7172737475767778"
        + " 00000000",
    "2, 00000028 f10c 01 07 8182838485868788 02 000000 31323334 6162636465666768 7172737475767778"
        + " 00000000",
    "3, 00000028 f10c 01 07 8182838485868788 03 000000 31323334 6162636465666768 7172737475767778"
        + " 00000000",
  })
  void readResponseWithoutRecordHasEmptyPayload(byte status, String expected) {
    assertGolden(
        new WireMessage.ReadResponse(REQUEST_ID, status, COLOR, SN, BOUND, new Bytes(new byte[0])),
        expected);
  }

  @Test
  void errorCarriesCodeAndUtf8ByteLengthOfMessage() {
    // "busy é": 6 characters, 7 UTF-8 bytes.
    assertGolden(
        new WireMessage.ErrorMessage(REQUEST_ID, ErrorCode.NOT_READY, "busy \u00e9"),
        "00000017 f10c 01 08 8182838485868788 0005 0007 6275737920c3a9");
  }

  @Test
  void metadataRequestHasEmptyBody() {
    assertGolden(
        new WireMessage.MetadataRequest(REQUEST_ID), "0000000c f10c 01 09 8182838485868788");
  }

  @Test
  void metadataResponseListsNodesColorsAndShardsInDocumentedLayout() {
    Topology topology =
        new Topology(
            42,
            List.of(
                new NodeAddress(1, NodeAddress.Kind.SEQUENCER, "s1", 7000),
                new NodeAddress(2, NodeAddress.Kind.REPLICA, "r1", 7001),
                new NodeAddress(3, NodeAddress.Kind.REPLICA, "r2", 7002)),
            List.of(new Color(0, "global", Color.NO_PARENT, 1), new Color(1, "eu", 0, 1)),
            List.of(new Shard(10, 0, List.of(2, 3)), new Shard(11, 1, List.of(3))));
    assertGolden(
        new WireMessage.MetadataResponse(REQUEST_ID, topology, 1 << 20),
        "00000093 f10c 01 0a 8182838485868788"
            // topology version, max record bytes
            + " 000000000000002a 00100000"
            // nodes: id, kind (0 sequencer, 1 replica), host (u16 length + UTF-8), port
            + " 00000003"
            + " 00000001 00 0002 7331 00001b58"
            + " 00000002 01 0002 7231 00001b59"
            + " 00000003 01 0002 7232 00001b5a"
            // colors: id, parent id, sequencer id, name
            + " 00000002"
            + " 00000000 ffffffff 00000001 0006 676c6f62616c"
            + " 00000001 00000000 00000001 0002 6575"
            // shards: id, color id, replica count, replica ids
            + " 00000002"
            + " 0000000a 00000000 00000002 00000002 00000003"
            + " 0000000b 00000001 00000001 00000003");
  }

  @Test
  void helloListsShardIdsAfterReplicaNodeId() {
    assertGolden(
        new WireMessage.Hello(REPLICA, List.of(10, 11, 12)),
        "00000020 f10c 01 0b 0000000000000000 51525354 00000003 0000000a 0000000b 0000000c");
  }

  @Test
  void subscribeMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.Subscribe(
            REQUEST_ID, COLOR, SHARD, SN, BOUND, SubscribeDescriptor.ACCEPT_UNSYNCED),
        "00000028 f10c 01 0c 8182838485868788"
            + " 31323334 41424344 6162636465666768 7172737475767778 01 000000");
  }

  @Test
  void subscribeRecordsListEntriesThenPayloadsInDocumentedLayout() {
    WireMessage.SubscribeRecords records =
        new WireMessage.SubscribeRecords(
            REQUEST_ID,
            COLOR,
            SHARD,
            BOUND,
            List.of(
                new WireMessage.StreamedRecord(SN, Bytes.of("abc")),
                new WireMessage.StreamedRecord(0x9192939495969798L, Bytes.of("")),
                new WireMessage.StreamedRecord(0xa1a2a3a4a5a6a7a8L, Bytes.of("hi"))));
    String header =
        "00000049 f10c 01 0d 8182838485868788 31323334 41424344 7172737475767778 00000003"
            + " 6162636465666768 00000003"
            + " 9192939495969798 00000000"
            + " a1a2a3a4a5a6a7a8 00000002";
    assertGolden(records, header + " 616263 6869");

    ByteBuf encodedHeader = records.encodeHeader(ALLOC);
    try {
      assertThat(ByteBufUtil.hexDump(encodedHeader)).isEqualTo(compact(header));
    } finally {
      encodedHeader.release();
    }
    // The replica writes the header buffer, then each payload as a slice of its log.
    assertDecodesInChunks(records, header, "616263", "6869");
  }

  @Test
  void subscribeRecordsWithoutRecordsCarriesOnlyProgress() {
    assertGolden(
        new WireMessage.SubscribeRecords(REQUEST_ID, COLOR, SHARD, BOUND, List.of()),
        "00000020 f10c 01 0d 8182838485868788 31323334 41424344 7172737475767778 00000000");
  }

  @Test
  void subscribeProgressMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.SubscribeProgress(REQUEST_ID, COLOR, SHARD, SN),
        "0000001c f10c 01 0e 8182838485868788 31323334 41424344 6162636465666768");
  }

  @Test
  void topologyMarkMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.TopologyMark(REQUEST_ID, COLOR, SHARD, BOUND, SN),
        "00000024 f10c 01 11 8182838485868788 31323334 41424344 7172737475767778"
            + " 6162636465666768");
  }

  @Test
  void subscribeCreditMatchesDocumentedLayout() {
    assertGolden(
        new WireMessage.SubscribeCredit(REQUEST_ID, BOUND),
        "00000014 f10c 01 0f 8182838485868788 7172737475767778");
  }

  @Test
  void unsubscribeHasEmptyBody() {
    assertGolden(new WireMessage.Unsubscribe(REQUEST_ID), "0000000c f10c 01 10 8182838485868788");
  }

  /** Encodes {@code message}, compares to {@code expectedHex}, then decodes the golden bytes. */
  static void assertGolden(WireMessage message, String expectedHex) {
    ByteBuf encoded = message.encode(ALLOC);
    try {
      assertThat(ByteBufUtil.hexDump(encoded)).isEqualTo(compact(expectedHex));
    } finally {
      encoded.release();
    }
    assertDecodesInChunks(message, expectedHex);
  }

  /**
   * Feeds the golden bytes to the decoder, each hex string as a separate read, and checks that
   * exactly one frame comes out, byte-identical, reading back as {@code expected}.
   */
  private static void assertDecodesInChunks(WireMessage expected, String... hexChunks) {
    String golden = compact(String.join("", hexChunks));
    try (DecoderHarness harness = new DecoderHarness(1 << 16)) {
      for (String chunk : hexChunks) {
        harness.write(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(compact(chunk))));
      }
      assertThat(harness.events)
          .containsExactly(
              new DecoderHarness.Frame(new Bytes(ByteBufUtil.decodeHexDump(golden)), expected));
      ByteBuf frame = Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(golden));
      assertThat(FrameDescriptor.requestId(frame)).isEqualTo(expected.requestId());
      assertThat(harness.finishAndFindLeaks()).isEmpty();
    }
  }

  private static String compact(String hex) {
    return hex.replace(" ", "");
  }
}
