package io.flexlog.core.model;

import java.util.regex.Pattern;

/**
 * A color (region): a named, totally ordered log. Colors form a tree rooted at {@link #GLOBAL}.
 *
 * @param id the wire id, unique in the cluster
 * @param name the user-facing name
 * @param parentId the parent's id, or {@link #NO_PARENT} for the root
 * @param sequencerId the sequencer node hosting this color's ordering role (its current leader)
 * @param roleEpoch the epoch in which that leader issues the color's SNs, committed in the metadata
 *     quorum when it took the role; every later leader gets a larger one, so a replica that knows
 *     it can refuse order responses and watermarks of older epochs for the color. 0 when the role
 *     is not managed by the quorum: it issues SNs in its node's epoch (docs/architecture.md,
 *     "Sequencer failover")
 * @param retention how long the color keeps its records (docs/architecture.md#retention); {@link
 *     Retention#KEEP_ALL} unless configured
 */
public record Color(
    int id, String name, int parentId, int sequencerId, int roleEpoch, Retention retention) {
  public static final int GLOBAL_ID = 0;
  public static final String GLOBAL = "global";
  public static final int NO_PARENT = -1;

  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}");

  public Color {
    validateName(name);
    if (id < 0) {
      throw new IllegalArgumentException("color id must be >= 0: " + id);
    }
    if (roleEpoch < 0) {
      throw new IllegalArgumentException("role epoch must be >= 0: " + roleEpoch);
    }
    if (retention == null) {
      throw new IllegalArgumentException("color '" + name + "': retention must not be null");
    }
  }

  /** A color that keeps all its records ({@link Retention#KEEP_ALL}). */
  public Color(int id, String name, int parentId, int sequencerId, int roleEpoch) {
    this(id, name, parentId, sequencerId, roleEpoch, Retention.KEEP_ALL);
  }

  /** A color whose role is not (yet) managed by the metadata quorum: role epoch 0. */
  public Color(int id, String name, int parentId, int sequencerId) {
    this(id, name, parentId, sequencerId, 0);
  }

  /** This color with its role led by {@code sequencerId} in {@code roleEpoch}. */
  public Color withRole(int sequencerId, int roleEpoch) {
    return new Color(id, name, parentId, sequencerId, roleEpoch, retention);
  }

  /** This color with another retention. */
  public Color withRetention(Retention retention) {
    return new Color(id, name, parentId, sequencerId, roleEpoch, retention);
  }

  /** Throws {@link IllegalArgumentException} naming the problem when {@code name} is not legal. */
  public static void validateName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "illegal color name '"
              + name
              + "': 1-63 characters of letters, digits, '.', '_' or '-', starting with a letter"
              + " or digit");
    }
  }

  public boolean isRoot() {
    return parentId == NO_PARENT;
  }
}
