package io.flexlog.core.model;

import java.util.regex.Pattern;

/**
 * A color (region): a named, totally ordered log. Colors form a tree rooted at {@link #GLOBAL}.
 *
 * @param id the wire id, unique in the cluster
 * @param name the user-facing name
 * @param parentId the parent's id, or {@link #NO_PARENT} for the root
 * @param sequencerId the sequencer node hosting this color's ordering role
 */
public record Color(int id, String name, int parentId, int sequencerId) {
  public static final int GLOBAL_ID = 0;
  public static final String GLOBAL = "global";
  public static final int NO_PARENT = -1;

  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9][a-zA-Z0-9._-]{0,62}");

  public Color {
    validateName(name);
    if (id < 0) {
      throw new IllegalArgumentException("color id must be >= 0: " + id);
    }
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
