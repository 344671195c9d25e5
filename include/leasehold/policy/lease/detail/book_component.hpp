#pragma once

// What the components over a lease book (lease_book.hpp) share, written once: the book they
// read and change, the book's types under the names they use, and the VM time model under the
// book's configuration (times()).
//
// Each component is a nested class of book_component<Book> that derives from it, defined in its
// own header (best_effort_planning.hpp, reservation_admission.hpp, event_clock.hpp,
// lease_checks.hpp) and named by callers through an alias template of the same name there.
// Nested, its base is the current instantiation rather than a dependent base, so the component
// names time_type, book_ or times() as its own, without a block of `using` declarations or
// `this->` in each component. A component that only reads the book is a member of
// book_component<const Book>.

namespace leasehold::policy::lease::detail {

template <class Book>
class book_component {
 public:
  explicit book_component(Book& book) noexcept : book_(book) {}

  // The components, each made per call over the book (lease_scheduler.hpp).
  class best_effort_planning;
  class reservation_admission;
  class event_clock;
  class lease_checks;

 protected:
  // For the components only: callers name the book's types through the book.
  using capacity_type = typename Book::capacity_type;
  using node_key_type = typename Book::node_key_type;
  using preparation_type = typename Book::preparation_type;
  using queue_order_type = typename Book::queue_order_type;
  using record_type = typename Book::record_type;
  using segment_type = typename Book::segment_type;
  using table_type = typename Book::table_type;
  using terms_type = typename Book::terms_type;
  using time_type = typename Book::time_type;

  Book& book_;

  [[nodiscard]] typename Book::times_type times() const noexcept { return book_.times(); }
};

}  // namespace leasehold::policy::lease::detail
