// What the statements of a C unit read and write, for the skeleton slice (Slice.h): abstract
// memory classes (Steensgaard's unification-based points-to analysis) and per-expression effects.
#ifndef MPIETE_FRONTEND_LIB_SLICEEFFECTS_H
#define MPIETE_FRONTEND_LIB_SLICEEFFECTS_H

#include "mpiete/basedata/LinkSummary.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mpiete::slice {

using ClassId = unsigned;

/// An MPI handle that is a pointer to an object of the library's own (Open MPI's MPI_Comm,
/// MPI_Request, MPI_Datatype...: pointers to structs mpi.h leaves incomplete). The program
/// cannot reach into such an object, so the slice treats the handle as a plain value: only
/// MPI calls read or write what it points to. MPICH's handles are integers already.
bool isMpiHandle(clang::QualType T);
/// A pointer the program may read or write through: a pointer type that is not such a handle.
bool pointerValue(clang::QualType T);
/// A value that may hold pointers: a pointer (not an MPI handle), a record or an array.
bool carriesPointers(clang::QualType T);
/// The procedures (canonical declarations) whose address the unit takes: called through
/// pointers too, so not every call of theirs is seen.
std::set<const clang::FunctionDecl *> addressTaken(clang::ASTContext &Ctx);

/// Abstract memory: every variable has a class; classes that a pointer may point into are
/// merged (union-find), so one class stands for every place one pointer may reach. A class
/// has at most one pointee class (what the pointers stored in it point to). A struct's fields
/// are classes of their own, members of the struct's class, sharing its pointee: a statement
/// that writes one field does not write the others, and one that reads or writes the whole
/// object (a copy, memset, a buffer) touches every member.
class Memory {
public:
  Memory();
  ClassId fresh();
  ClassId find(ClassId C);
  void join(ClassId A, ClassId B);
  ClassId pointee(ClassId C);
  /// The class of field F of the objects of class C. A union's fields are C itself, and so is
  /// every field of a class collapsed (reached as two record types, or through a pointer into
  /// one of its fields taken as another type).
  ClassId field(ClassId C, const clang::FieldDecl *F);
  /// Adds C and its members (fields, theirs, ...) to Out: what the whole object is.
  void members(ClassId C, std::set<ClassId> &Out);
  /// Field F's class where the unit made one (-1: none, so nothing touched it); C itself
  /// where field() would answer C or fold C's fields (a union, collapsed, another record).
  int fieldIfMade(ClassId C, const clang::FieldDecl *F);
  /// Whether C's fields are classes of their own, of record RD.
  bool hasFieldsOf(ClassId C, const clang::RecordDecl *RD);
  /// Folds C's fields back into C.
  void collapse(ClassId C);
  /// The class C is a field of (-1: none).
  int owner(ClassId C);
  ClassId var(const clang::VarDecl *VD);
  ClassId returned(const clang::FunctionDecl *FD);
  /// Storage of other units and of the libraries, seen through calls the unit cannot see.
  ClassId External = 0;
  /// Hidden library state (random numbers, file positions) and the output streams.
  ClassId LibState = 0, IoState = 0;
  std::vector<const clang::VarDecl *> Globals;
  /// Static locals: state a procedure keeps from one call to the next.
  std::vector<const clang::VarDecl *> StaticLocals;

private:
  std::vector<ClassId> Parent;
  std::vector<int> Pointee;
  // At each root: its fields, the record type they are of, collapsed, the class it is a field of.
  std::vector<std::map<const clang::FieldDecl *, ClassId>> Fields;
  std::vector<const clang::RecordDecl *> Record;
  std::vector<char> Collapsed;
  std::vector<int> Owner;
  llvm::DenseMap<const clang::VarDecl *, ClassId> Vars;
  llvm::DenseMap<const clang::FunctionDecl *, ClassId> Returns;
};

/// One MPI call: the classes of its message buffers (void * arguments) and of those the
/// library writes (non-const void *).
struct MpiCall {
  std::string Routine;
  std::set<ClassId> SendBuffers, RecvBuffers;
  /// Point-to-point (a send or receive of any kind), else a collective: the data a receive
  /// delivers was sent by some point-to-point send, a collective's by the same collective.
  bool PointToPoint() const;
};

/// The effects of a statement or expression, as resolved classes.
struct Effects {
  std::set<ClassId> Defs, Uses;
  /// Uses other than the message data another unit's procedure sends (those count for the
  /// dependences, not for what this unit demands of that procedure: LinkSummary::Demands).
  std::set<ClassId> PlainUses;
  std::vector<MpiCall> Calls;
  bool Criterion = false; ///< an MPI call, a call that may communicate or end the program
  /// A criterion of the unit's own (MPI, a call through a pointer, asm, the end of the
  /// program), not from a call of another unit's procedure.
  bool OwnCriterion = false;
  bool Mpi = false; ///< contains an MPI call
  /// Procedures of other units it calls (names as the linker sees them).
  std::set<std::string> ExternalCalls;
  void add(const Effects &E);
};

/// Parts of a statement its effects leave out: expressions whose value the statement passes
/// on by a flow of its own (arguments), and calls whose result it does.
struct Exclusions {
  std::set<const clang::Stmt *> Skipped;
  std::set<const clang::CallExpr *> ResultPassed;
};

/// The whole unit's analysis: pointer unification over every body, then per-function
/// summaries; effects() answers for any statement afterwards.
class UnitEffects {
public:
  /// Program: what the link step knows of other units' procedures (null: nothing); Unit: the
  /// unit's path, which names its static storage in summaries.
  UnitEffects(clang::ASTContext &Ctx, const LinkSummary *Program, std::string Unit);
  /// The effects of S (a whole statement, an expression or a declaration), without Except's.
  Effects effects(const clang::Stmt *S, const Exclusions *Except = nullptr);
  /// The value a procedure of the unit returns: its return statements define it, a call that
  /// uses the result reads it.
  ClassId result(const clang::FunctionDecl *FD);
  /// Effects of a variable's initialisation.
  Effects initEffects(const clang::VarDecl *VD);
  /// A defined function that makes MPI calls, or calls what the unit cannot see (which may).
  bool mayCommunicate(const clang::FunctionDecl *FD) const;
  /// The unit's link summary: its procedures with external linkage (not main), their own
  /// criteria, the other units' procedures they call and their effects by parameter and
  /// global name (LinkSummary.h). Steered is left to the slice.
  LinkSummary linkSummary(const clang::FunctionDecl *const *Begin,
                          const clang::FunctionDecl *const *End);
  /// Classes reachable through C's pointers, to a bounded depth, with their members, and C's
  /// own members (C itself excluded).
  std::set<ClassId> reachFrom(ClassId C);
  /// The classes with their members: what a definition or use of each touches.
  std::set<ClassId> whole(const std::set<ClassId> &Classes);
  /// Field-level effects on the record a pointer parameter points to (FieldsByParam): a
  /// field F is "F", its own storage with its members, and "F*", what the pointers in it
  /// reach (a struct's pointer fields share what they point to, so every "F*" of one object
  /// is the same memory). The record a pointer of type T points to, if it is one whose fields
  /// are named (not a union, defined); else null.
  static const clang::RecordDecl *pointedRecord(clang::QualType T);
  /// The fields of RD (objects of class Obj) whose classes meet Set, as names; false where
  /// Set meets Obj's reach outside every field's (the whole object used, fields collapsed).
  bool fieldsMeeting(ClassId Obj, const clang::RecordDecl *RD, const std::set<ClassId> &Set,
                     std::set<std::string> &Out);
  /// Whether Set meets what parameter Param points to, with what that reaches; Fields: the
  /// fields of a struct it points to that Set meets, where they account for all of it
  /// (fieldsMeeting), else none.
  bool paramMeets(const clang::ParmVarDecl *Param, const std::set<ClassId> &Set,
                  std::optional<std::set<std::string>> &Fields);
  /// The classes the named fields of RD at Obj reach, added to Out; false where a name is not
  /// RD's or Obj's fields are not classes of their own (then the whole object is meant).
  bool fieldsReach(ClassId Obj, const clang::RecordDecl *RD, const std::set<std::string> &Names,
                   std::set<ClassId> &Out);
  /// The class of a global named as summaries name it.
  ClassId named(const std::string &Name);
  std::string globalName(const clang::VarDecl *VD) const;
  Memory Mem;
  const LinkSummary *Program = nullptr;
  std::string Unit;

  // Used by the visitors.
  ClassId loc(const clang::Expr *E);
  ClassId points(const clang::Expr *E);
  /// P, the class a cast's operand points into; a pointer into a field taken as another type
  /// collapses the object's fields.
  ClassId reinterpreted(const clang::CastExpr *CE, ClassId P);
  void unify(const clang::Expr *Target, ClassId TargetLoc, const clang::Expr *Value);
  bool defined(const clang::FunctionDecl *FD) const;
  clang::ASTContext &Ctx;
  struct Summary {
    Effects Local;
    std::set<const clang::FunctionDecl *> Callees;
    bool Communicates = false;
    bool OwnCriterion = false;
  };
  std::map<const clang::FunctionDecl *, Summary> Summaries;

private:
  void summarise();
  std::map<std::string, ClassId> Named;
  llvm::DenseMap<const clang::FunctionDecl *, ClassId> Results;
};

} // namespace mpiete::slice

#endif
