/**
 * The record format (version 1): how a record's key, headers, timestamp and compressed value are
 * laid out in the payload a replica stores ({@link io.flexlog.core.record.RecordFormatDescriptor},
 * docs/protocol.md#record-format). Replicas never look inside; clients write and read it.
 */
package io.flexlog.core.record;
