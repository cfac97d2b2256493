package io.flexlog.core.error;

/**
 * A read asked for an SN above the color's tail: the color's ordering role had not issued it when
 * the read was made, so no append that completed before the read can be there
 * (docs/architecture.md#head-and-tail). Not final: a later read of the same SN may find a record.
 */
public class SnBeyondTailException extends FlexLogException {
  private static final long serialVersionUID = 1L;

  private final long sn;
  private final long tail;

  public SnBeyondTailException(String color, long sn, long tail) {
    super("SN " + sn + " of color '" + color + "' is beyond its tail " + tail);
    this.sn = sn;
    this.tail = tail;
  }

  /** The SN that was read. */
  public long sn() {
    return sn;
  }

  /** The color's tail when the read was answered: the last SN its role had issued. */
  public long tail() {
    return tail;
  }
}
