// Applies an edit set in one pass over the text, refusing conflicts (clang-reorder-fields rule).
#include "mpiete/transforms/EditSet.h"

#include <algorithm>
#include <numeric>

namespace mpiete {

std::optional<std::string> EditSet::apply(const std::string &Text, std::string &Error) const {
  std::vector<size_t> Order(Edits.size());
  std::iota(Order.begin(), Order.end(), 0);
  std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    const Edit &EA = Edits[A], &EB = Edits[B];
    if (EA.Offset != EB.Offset)
      return EA.Offset < EB.Offset;
    // Insertions at the start of a replacement go before the text it replaces.
    if ((EA.Length == 0) != (EB.Length == 0))
      return EA.Length == 0;
    return static_cast<int>(EA.Order) < static_cast<int>(EB.Order);
  });

  std::string Out;
  Out.reserve(Text.size() + Edits.size() * 48);
  size_t Pos = 0;
  const Edit *Prev = nullptr;
  for (size_t I : Order) {
    const Edit &E = Edits[I];
    if (Prev && Prev->Offset == E.Offset && Prev->Length == E.Length && Prev->Text == E.Text &&
        Prev->Order == E.Order)
      continue;
    if (E.Offset + E.Length > Text.size()) {
      Error = "edit at offset " + std::to_string(E.Offset) + " lies past the end of the text";
      return std::nullopt;
    }
    if (E.Offset < Pos) {
      Error = "edits overlap at offset " + std::to_string(E.Offset);
      return std::nullopt;
    }
    Out.append(Text, Pos, E.Offset - Pos);
    Out += E.Text;
    Pos = E.Offset + E.Length;
    Prev = &E;
  }
  Out.append(Text, Pos, std::string::npos);
  return Out;
}

} // namespace mpiete
