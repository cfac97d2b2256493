/**
 * The errors FlexLog reports to users, and their wire codes.
 *
 * <p>{@link io.flexlog.core.error.ErrorCode} lists the codes that cross the wire, in an ERROR frame
 * on the data plane or in the {@code flexlog-error-code} trailer of the admin gRPC service (see
 * {@link io.flexlog.core.admin.AdminErrors}). Each code has one unchecked exception below {@link
 * io.flexlog.core.error.FlexLogException}, whose {@code code()} is the code it travels as; {@link
 * io.flexlog.core.error.FlexLogException#fromWire(io.flexlog.core.error.ErrorCode, String)} maps a
 * received code back to that exception, so a user catches the same type whether the error came from
 * a replica, a sequencer or the admin service. {@code UNKNOWN_SHARD} and {@code INTERNAL} have no
 * type of their own and arrive as a plain {@code FlexLogException}; a wire value this version does
 * not know reads as {@code INTERNAL}. {@link io.flexlog.core.error.FlexLogTimeoutException} never
 * crosses the wire: the client raises it when a deadline passes (for an append the outcome is then
 * unknown).
 *
 * <h2>Who talks to whom</h2>
 *
 * <ul>
 *   <li>Nodes throw these exceptions and encode their code into replies: the replica (for example
 *       {@code STORAGE_FULL}, {@code TRIMMED}, {@code NOT_READY}, the atomic outcomes), the
 *       sequencer ({@code UNKNOWN_SHARD}, {@code UNKNOWN_COLOR}, {@code INVALID_ARGUMENT}), the
 *       control plane in flexlog-server ({@code COLOR_EXISTS}, {@code NOT_ENOUGH_NODES}, {@code
 *       INVALID_ARGUMENT}).
 *   <li>{@link io.flexlog.core.error.ProtocolException} is thrown by the frame validators of {@code
 *       io.flexlog.core.protocol}; {@link io.flexlog.core.net.ConnectionErrors} answers it with an
 *       ERROR of code {@code PROTOCOL} and closes that connection only.
 *   <li>The client ({@code io.flexlog.client}) completes the caller's future with the exception of
 *       the code it received.
 * </ul>
 *
 * <p>The classes are plain exceptions with no state beyond their message: no threading concerns.
 * The table of codes, meanings and client exceptions is in {@code docs/protocol.md} ("Error
 * codes"); the atomic-append outcomes are explained in {@code docs/architecture.md}.
 */
package io.flexlog.core.error;
