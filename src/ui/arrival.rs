//! A part of the first screen that is mounted once it has arrived ([`Arrival`]).

use leptos::prelude::*;

use crate::model::arrival::Part;
use crate::state::arrival::Arrival;

/// `children`, mounted once `part` has arrived and kept from then on.
#[component]
pub fn Arriving(arrival: Arrival, part: Part, children: ChildrenFn) -> impl IntoView {
    // A memo, so the later parts' arrivals do not build these children again.
    let here = Memo::new(move |_| arrival.has(part));
    move || here.get().then(|| children())
}
