// A set of non-overlapping text edits at known byte offsets, applied all or nothing.
#ifndef MPIETE_TRANSFORMS_EDITSET_H
#define MPIETE_TRANSFORMS_EDITSET_H

#include <optional>
#include <string>
#include <vector>

namespace mpiete {

/// Insertions at one offset are ordered by Order (lower first), then by the order they were
/// added: closing text (end hooks, '}') goes before opening text so adjacent blocks nest. All
/// insertions at an offset go before a replacement that starts there.
enum class EditOrder { Close = 0, Replace = 1, Open = 2 };

struct Edit {
  unsigned Offset = 0;
  unsigned Length = 0; ///< bytes replaced; 0 for an insertion
  std::string Text;
  EditOrder Order = EditOrder::Open;
};

class EditSet {
public:
  void insert(unsigned Offset, std::string Text, EditOrder Order) {
    Edits.push_back({Offset, 0, std::move(Text), Order});
  }
  void replace(unsigned Offset, unsigned Length, std::string Text) {
    Edits.push_back({Offset, Length, std::move(Text), EditOrder::Replace});
  }
  const std::vector<Edit> &edits() const { return Edits; }
  /// Drops every edit within [Begin, End], its ends included: the text around them goes (a
  /// skeleton's removed loop takes its hooks with it).
  void dropWithin(unsigned Begin, unsigned End) {
    std::erase_if(Edits,
                  [&](const Edit &E) { return E.Offset >= Begin && E.Offset + E.Length <= End; });
  }

  /// Applies every edit to Text. Identical duplicates collapse; overlapping replacements, or
  /// an edit past the end, are a conflict: then nothing is applied and the conflict is
  /// described in Error.
  std::optional<std::string> apply(const std::string &Text, std::string &Error) const;

private:
  std::vector<Edit> Edits;
};

} // namespace mpiete

#endif
