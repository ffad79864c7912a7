//! The page in a real browser: mount it, click, let the reactive system settle with
//! `tick().await` (and real animation frames where time must pass), assert on the DOM.
#![cfg(target_arch = "wasm32")]

use brokerlab_app::ui::app::App;
use brokerlab_app::ui::panic_panel;
use leptos::prelude::*;
use leptos::task::tick;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A mounted page in its own container; unmounted and removed when dropped.
struct Mounted {
    root: HtmlElement,
    _handle: Box<dyn std::any::Any>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.root.remove();
    }
}

impl Mounted {
    /// The page with its whole first screen on it (its parts arrive one task after another).
    async fn new() -> Self {
        let page = Self::mounting();
        page.arrived().await;
        page
    }

    /// The page as `mount_to` leaves it: only the first screen's first part is in.
    fn mounting() -> Self {
        let root: HtmlElement = document()
            .create_element("div")
            .expect("div")
            .unchecked_into();
        document()
            .body()
            .expect("body")
            .append_child(&root)
            .expect("append");
        let handle = leptos::mount::mount_to(root.clone(), App);
        Self {
            root,
            _handle: Box::new(handle),
        }
    }

    /// Whether the page says all of its first screen is on it.
    fn ready(&self) -> bool {
        self.root
            .query_selector("main[data-ready='true']")
            .expect("valid selector")
            .is_some()
    }

    /// Waits until the whole first screen is on the page (a few tasks).
    async fn arrived(&self) {
        for _ in 0..2_000 {
            if self.ready() {
                return;
            }
            sleep(5).await;
        }
        panic!("the first screen never said it was all on the page");
    }

    fn get(&self, testid: &str) -> HtmlElement {
        self.root
            .query_selector(&format!("[data-testid='{testid}']"))
            .expect("valid selector")
            .unwrap_or_else(|| panic!("no element with data-testid={testid}"))
            .unchecked_into()
    }

    fn text(&self, testid: &str) -> String {
        self.get(testid)
            .text_content()
            .unwrap_or_default()
            .trim()
            .to_string()
    }

    /// A counter's value as a number ("12,345" → 12345, "4.2 s" → 4.2).
    fn number(&self, testid: &str) -> f64 {
        let text = self.text(testid).replace(',', "");
        let text = text.trim_end_matches(" s");
        text.parse()
            .unwrap_or_else(|_| panic!("{testid} is not a number: {text:?}"))
    }

    async fn click(&self, testid: &str) {
        self.get(testid).click();
        tick().await;
    }

    fn has(&self, testid: &str) -> bool {
        self.finds(&format!("[data-testid='{testid}']"))
    }

    /// Whether an element matching the CSS `selector` is on the page.
    fn finds(&self, selector: &str) -> bool {
        self.root
            .query_selector(selector)
            .expect("valid selector")
            .is_some()
    }

    /// Chooses `value` in a select and tells the page, as a user's choice would.
    async fn choose(&self, testid: &str, value: &str) {
        let select: HtmlSelectElement = self.get(testid).unchecked_into();
        select.set_value(value);
        fire(&select, "change");
        tick().await;
    }

    /// Types `text` into an input or a text area (replacing what was there).
    async fn type_into(&self, testid: &str, text: &str) {
        let field = self.get(testid);
        // Through the `value` property, which inputs and text areas both have.
        js_sys::Reflect::set(&field, &"value".into(), &text.into()).expect("a field");
        fire(&field, "input");
        tick().await;
    }

    /// The `value` of an input or a text area.
    fn value(&self, testid: &str) -> String {
        js_sys::Reflect::get(&self.get(testid), &"value".into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_else(|| panic!("{testid} has no value"))
    }
}

/// Dispatches a bubbling event of type `kind` at `target`.
fn fire(target: &web_sys::EventTarget, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict(kind, &init).expect("event");
    target.dispatch_event(&event).expect("dispatch");
}

/// Presses `key` on the page (a keydown at the body, bubbling to the window).
async fn press(key: &str) {
    let press = js_sys::Function::new_with_args(
        "key",
        "document.body.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));",
    );
    press
        .call1(&wasm_bindgen::JsValue::NULL, &key.into())
        .expect("keydown dispatched");
    tick().await;
}

/// Waits `ms` of real time (animation frames run meanwhile).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("setTimeout");
    });
    JsFuture::from(promise).await.expect("timeout resolves");
    tick().await;
}

#[wasm_bindgen_test]
async fn the_page_mounts_paused_at_zero_with_every_control() {
    let page = Mounted::new().await;
    tick().await;
    assert_eq!(page.text("time"), "0.0 s");
    assert_eq!(page.text("backlog"), "0");
    assert_eq!(page.text("published"), "0");
    assert_eq!(page.text("consumers-up"), "20 / 20");
    assert_eq!(page.text("crashes"), "0");
    assert_eq!(page.text("play"), "Play");
    assert_eq!(page.text("crash"), "Crash worker-1");
    assert_eq!(page.text("narration"), "Press Play to start the run.");
    assert!(page
        .text("scenario-description")
        .contains("3,000 messages per second"));
    let speed: HtmlSelectElement = page.get("speed").unchecked_into();
    assert_eq!(speed.value(), "10");
    for id in [
        "reset",
        "chart",
        "events",
        "delivered",
        "redelivered",
        "acked",
        "lost",
        "duplicate-effects",
    ] {
        page.get(id);
    }
}

#[wasm_bindgen_test]
async fn the_first_screen_arrives_in_parts_one_task_each_the_header_and_controls_first() {
    let page = Mounted::mounting();
    tick().await;
    // What each part brings, in the order the parts come.
    let marks = [
        "[data-testid=scenario]",
        "[data-testid=copy-link]",
        "[data-testid=play]",
        "[data-testid=topology]",
        "[data-testid=chart]",
        "[data-testid=chart][data-drawn=true]",
        "[data-testid=side]",
        "[data-testid=events]",
        "[data-testid=help]",
        // The example's twenty consumers are folded under the lane's summary: their cards
        // come last.
        "[data-testid=consumer-0]",
    ];
    let arrived = |page: &Mounted| marks.iter().take_while(|m| page.finds(m)).count();
    assert_eq!(
        arrived(&page),
        0,
        "the task that mounts the page only says it is loading"
    );
    assert_eq!(
        page.root.text_content().unwrap_or_default(),
        "Loading Broker Lab…"
    );
    // One look per task: zero-delay timeouts run in the order they were set, so this loop
    // and the page's arrivals take turns, and a part that has a task of its own is seen
    // arriving alone.
    let mut seen = vec![0];
    while !page.ready() {
        sleep(0).await;
        seen.push(arrived(&page));
        assert!(
            seen.len() < 100,
            "the first screen keeps arriving: {seen:?}"
        );
    }
    assert_eq!(
        seen.last(),
        Some(&marks.len()),
        "all parts are in once ready: {seen:?}"
    );
    assert!(
        seen.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1),
        "one part per task, in order: {seen:?}"
    );
    // The controls work.
    page.click("step").await;
    assert_eq!(page.number("published"), 1.0);
}

#[wasm_bindgen_test]
async fn play_advances_time_and_pause_stops_it() {
    let page = Mounted::new().await;
    page.click("play").await;
    assert_eq!(page.text("play"), "Pause");
    sleep(500).await;
    let t1 = page.number("time");
    assert!(t1 > 0.0, "simulated time moved: {t1}");
    assert!(page.number("published") > 0.0);
    assert!(
        page.number("backlog") > 0.0,
        "the burst outruns the consumers"
    );
    assert_ne!(page.text("narration"), "Press Play to start the run.");

    page.click("play").await;
    assert_eq!(page.text("play"), "Play");
    let paused_at = page.text("time");
    sleep(300).await;
    assert_eq!(page.text("time"), paused_at, "paused: time stands still");
}

#[wasm_bindgen_test]
async fn crash_changes_the_counters_at_once() {
    let page = Mounted::new().await;
    page.click("crash").await;
    assert_eq!(page.text("crashes"), "1");
    assert_eq!(page.text("consumers-up"), "19 / 20");
    assert_eq!(
        page.text("crash"),
        "Crash worker-2",
        "the next press crashes the next consumer"
    );
    assert!(
        page.text("narration").contains("worker-1 crashed"),
        "{}",
        page.text("narration")
    );
    assert!(
        page.text("events").contains("worker-1 crashed"),
        "{}",
        page.text("events")
    );
    let crashes = page.get("crashes").parent_element().expect("counter");
    assert!(
        crashes.class_list().contains("alert"),
        "a crash is highlighted"
    );

    page.click("reset").await;
    assert_eq!(page.text("crashes"), "0");
    assert_eq!(page.text("consumers-up"), "20 / 20");
}

#[wasm_bindgen_test]
async fn the_speed_menu_sets_how_fast_time_passes() {
    let page = Mounted::new().await;
    let speed: HtmlSelectElement = page.get("speed").unchecked_into();
    speed.set_value("0.1");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let change = web_sys::Event::new_with_event_init_dict("change", &init).expect("event");
    speed.dispatch_event(&change).expect("dispatch");
    tick().await;
    assert_eq!(speed.value(), "0.1");

    let clock = window().performance().expect("performance");
    let start = clock.now();
    page.click("play").await;
    // Play until the shown time has moved (a loaded machine may be slow to give frames).
    let mut t = 0.0;
    while t == 0.0 && clock.now() - start < 20_000.0 {
        sleep(100).await;
        t = page.number("time");
    }
    page.click("play").await;
    let wall_s = (clock.now() - start) / 1_000.0;
    let t_end = page.number("time");
    // At 0.1× simulated time is a tenth of the wall time played (plus the readout's
    // rounding); the default 10× would have gone a hundred times further.
    assert!(t_end > 0.0, "time moved");
    assert!(
        t_end <= wall_s * 0.1 + 0.1,
        "time at 0.1×: {t_end} after {wall_s} s of play"
    );
}

/// Pixels of the chart in the backlog line's blue.
fn chart_ink(canvas: &HtmlCanvasElement) -> usize {
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .expect("context")
        .expect("2d")
        .unchecked_into();
    let image = ctx
        .get_image_data(
            0.0,
            0.0,
            f64::from(canvas.width()),
            f64::from(canvas.height()),
        )
        .expect("image data");
    image
        .data()
        .chunks(4)
        .filter(|p| p[0] < 110 && p[1] < 150 && p[2] > 150)
        .count()
}

#[wasm_bindgen_test]
async fn the_chart_draws_the_backlog_as_it_grows() {
    let page = Mounted::new().await;
    tick().await;
    let canvas: HtmlCanvasElement = page.get("chart").unchecked_into();
    // This test page has no stylesheet: give the canvas a real size, and tell the page.
    canvas
        .set_attribute("style", "width: 800px; height: 450px")
        .expect("style");
    window()
        .dispatch_event(&web_sys::Event::new("resize").expect("event"))
        .expect("dispatch");
    tick().await;
    let ratio = window().device_pixel_ratio();
    assert_eq!(
        canvas.width(),
        (800.0 * ratio).round() as u32,
        "redrawn at the new size"
    );
    let before = chart_ink(&canvas);
    let speed: HtmlSelectElement = page.get("speed").unchecked_into();
    speed.set_value("20");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    speed
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).expect("event"))
        .expect("dispatch");
    page.click("play").await;
    // Play until 10 simulated seconds have passed (1 s of wall time at 20×, longer on a
    // loaded machine), then pause and let the chart redraw.
    let clock = window().performance().expect("performance");
    let start = clock.now();
    while page.number("time") < 10.0 && clock.now() - start < 30_000.0 {
        sleep(100).await;
    }
    page.click("play").await;
    sleep(50).await;
    let after = chart_ink(&canvas);
    assert!(page.number("time") >= 10.0, "{}", page.text("time"));
    assert!(
        after > before + 100,
        "the backlog line appeared: {before} → {after} blue pixels"
    );
}

#[wasm_bindgen_test]
async fn the_chart_canvas_is_sized_for_the_screen() {
    let page = Mounted::new().await;
    page.click("play").await;
    sleep(300).await;
    page.click("play").await;
    let canvas: HtmlCanvasElement = page.get("chart").unchecked_into();
    let ratio = window().device_pixel_ratio();
    assert!(canvas.client_width() > 0);
    assert_eq!(
        canvas.width(),
        (f64::from(canvas.client_width()) * ratio).round() as u32
    );
    assert_eq!(
        canvas.height(),
        (f64::from(canvas.client_height()) * ratio).round() as u32
    );
    let label = canvas.get_attribute("aria-label").unwrap_or_default();
    assert!(label.starts_with("Backlog over simulated time"), "{label}");
}

#[wasm_bindgen_test]
fn the_error_panel_shows_text_never_html() {
    panic_panel::show("<b>boom</b> & more");
    let panel = document()
        .get_element_by_id(panic_panel::PANEL_ID)
        .expect("a panel");
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alert"));
    let pre = panel
        .query_selector("pre")
        .expect("selector")
        .expect("a message");
    assert_eq!(pre.text_content().as_deref(), Some("<b>boom</b> & more"));
    assert!(
        panel.query_selector("b").expect("selector").is_none(),
        "the message was not parsed as HTML"
    );
    panic_panel::show("second");
    assert_eq!(
        document()
            .query_selector_all(".error-panel")
            .expect("selector")
            .length(),
        1,
        "replaced, not stacked"
    );
    panel.remove();
    if let Some(p) = document().get_element_by_id(panic_panel::PANEL_ID) {
        p.remove();
    }
}

#[wasm_bindgen_test]
async fn picking_a_scenario_loads_it_paused_with_its_description() {
    let page = Mounted::new().await;
    page.click("play").await;
    page.choose("scenario", "crash-after-commit").await;
    assert_eq!(page.text("play"), "Play", "a new scenario starts paused");
    assert!(
        page.text("scenario-description")
            .contains("crashes before its ack"),
        "{}",
        page.text("scenario-description")
    );
    assert_eq!(page.text("step-index"), "0");
    assert_eq!(page.text("time"), "0.0 s");
    assert_eq!(page.text("published"), "0");
    assert!(page.text("consumer-0").contains("C1"));
    assert!(!page.has("consumer-1"), "this scenario has one consumer");
    assert!(page.text("queue-0").contains("orders"));
}

#[wasm_bindgen_test]
async fn stepping_shows_the_duplicate_and_back_restores_the_counters() {
    let page = Mounted::new().await;
    // The event log follows the run while its tab is on show.
    page.click("tab-story").await;
    page.choose("scenario", "crash-after-commit").await;
    let mut seen = Vec::new();
    for _ in 0..20 {
        if page.number("duplicate-effects") >= 1.0 {
            break;
        }
        seen.push((
            page.text("step-index"),
            page.text("time"),
            page.text("redelivered"),
            page.text("duplicate-effects"),
            page.text("acked"),
        ));
        page.click("step").await;
    }
    assert_eq!(page.text("duplicate-effects"), "1");
    assert_eq!(page.text("redelivered"), "1");
    assert_eq!(page.text("step-index"), "6");
    assert!(
        page.get("duplicate-effects")
            .parent_element()
            .expect("counter")
            .class_list()
            .contains("alert"),
        "a duplicate is highlighted"
    );
    assert!(
        page.text("log").contains("(duplicate)"),
        "{}",
        page.text("log")
    );

    page.click("back").await;
    assert_eq!(page.text("step-index"), "5");
    let now = (
        page.text("step-index"),
        page.text("time"),
        page.text("redelivered"),
        page.text("duplicate-effects"),
        page.text("acked"),
    );
    assert_eq!(&now, seen.last().expect("steps were taken"));
    assert_eq!(page.text("duplicate-effects"), "0");
    assert_eq!(page.text("redelivered"), "1", "step 5 is the redelivery");
    assert!(!page.text("log").contains("(duplicate)"));
}

#[wasm_bindgen_test]
async fn the_keyboard_steps_plays_and_changes_speed() {
    let page = Mounted::new().await;
    page.choose("scenario", "crash-after-commit").await;
    press("ArrowRight").await;
    press("ArrowRight").await;
    assert_eq!(page.text("step-index"), "2");
    press("ArrowLeft").await;
    assert_eq!(page.text("step-index"), "1");
    // A one-message story opens at 1× (see model::player::pace).
    let speed: HtmlSelectElement = page.get("speed").unchecked_into();
    assert_eq!(speed.value(), "1");
    press("+").await;
    assert_eq!(speed.value(), "2");
    press("-").await;
    press("-").await;
    assert_eq!(speed.value(), "0.5");
    press(" ").await;
    assert_eq!(page.text("play"), "Pause");
    press(" ").await;
    assert_eq!(page.text("play"), "Play");
    press("r").await;
    assert_eq!(page.text("step-index"), "0");
}

#[wasm_bindgen_test]
async fn consumer_cards_crash_arm_and_restart_their_consumer() {
    let page = Mounted::new().await;
    tick().await;
    assert!(page.text("consumer-0-state").contains("idle"));
    page.click("consumer-0-crash-after-commit").await;
    assert!(
        page.text("consumer-0-state")
            .contains("armed: crash after commit"),
        "{}",
        page.text("consumer-0-state")
    );
    page.click("consumer-2-crash").await;
    assert_eq!(page.text("consumer-2-state"), "crashed · restarts in 5.0 s");
    assert_eq!(page.text("crashes"), "1");
    assert_eq!(page.text("consumers-up"), "19 / 20");
    page.click("consumer-2-restart").await;
    assert_eq!(page.text("consumers-up"), "20 / 20");
    assert!(!page.text("consumer-2-state").contains("crashed"));

    // The commands are part of the run: stepping back re-simulates them.
    page.click("step").await;
    let at = page.number("step-index");
    page.click("back").await;
    assert_eq!(page.number("step-index"), at - 1.0);
    assert_eq!(page.text("crashes"), "1", "the recorded crash is replayed");
    assert!(page.text("consumer-0-state").contains("armed"));

    page.click("broker-toggle").await;
    assert_eq!(page.text("broker-state"), "crashed");
    assert!(
        page.has("broker-crashes"),
        "the broker crash counter appears"
    );
    page.click("broker-toggle").await;
    assert_eq!(page.text("broker-state"), "up");
}

#[wasm_bindgen_test]
async fn consumer_and_producer_cards_drop_acks_slow_down_and_inject_poison() {
    let page = Mounted::new().await;
    // The event log follows the run while its tab is on show.
    page.click("tab-story").await;
    page.choose("scenario", "crash-after-commit").await;
    assert!(
        !page.has("producer-0-crash-after-publish"),
        "this producer has no outbox"
    );

    page.click("consumer-0-drop-ack").await;
    assert!(
        page.text("consumer-0-state")
            .contains("next ack will be lost"),
        "{}",
        page.text("consumer-0-state")
    );
    assert_eq!(page.text("consumer-0-slow"), "Slow ×4");
    page.click("consumer-0-slow").await;
    assert!(page.text("consumer-0-state").contains("slow ×4"));
    assert_eq!(page.text("consumer-0-slow"), "Normal speed");
    page.click("consumer-0-slow").await;
    assert!(!page.text("consumer-0-state").contains("slow"));

    assert_eq!(page.text("producer-0-toggle"), "Crash");
    page.click("producer-0-toggle").await;
    assert!(page.text("producer-0-state").contains("crashed"));
    assert_eq!(page.text("producer-0-toggle"), "Restart");
    page.click("producer-0-toggle").await;
    assert!(page.text("producer-0-state").contains("up"));

    page.click("producer-0-poison").await;
    // It publishes without confirms: there is no confirm to lose, and no button to lose
    // one (the core refuses the command).
    assert!(!page.has("producer-0-drop-confirm"), "no confirms");
    for _ in 0..80 {
        if page.number("redelivered") >= 1.0 && page.text("log").contains("malformed") {
            break;
        }
        page.click("step").await;
    }
    assert!(page.number("redelivered") >= 1.0, "{}", page.text("log"));
    assert!(
        page.text("log").contains("poison message"),
        "{}",
        page.text("log")
    );
    assert!(
        page.text("log").contains("malformed"),
        "the handler fails on the poison: {}",
        page.text("log")
    );

    // The commands are part of the run: stepping back re-simulates them.
    let at = page.number("step-index");
    page.click("back").await;
    assert_eq!(page.number("step-index"), at - 1.0);
    assert!(page.text("log").contains("poison message"));
}

#[wasm_bindgen_test]
async fn a_hidden_event_log_is_not_rebuilt_and_catches_up_when_shown() {
    let page = Mounted::new().await;
    page.choose("scenario", "crash-after-commit").await;
    assert!(page.get("panel-story").hidden(), "the counters are on show");
    let before = page.text("log");
    for _ in 0..6 {
        page.click("step").await;
    }
    // Hidden, the log kept its lines while the run moved (it has 300 to rebuild a frame).
    assert_eq!(page.text("log"), before);
    page.click("tab-story").await;
    assert!(!page.get("panel-story").hidden());
    let lines = page.get("log").child_element_count();
    assert!(lines >= 10, "{lines} lines once shown");
    assert!(page.text("log").contains("#0"));
    // Shown, it follows the run again (this story ends at step 6: a step back).
    let shown = page.text("log");
    page.click("back").await;
    assert_ne!(page.text("log"), shown);
    assert!(!page.text("log").contains("step 6 "));
}

#[wasm_bindgen_test]
async fn the_log_filter_takes_a_message_id_and_explains_bad_input() {
    let page = Mounted::new().await;
    // The event log follows the run while its tab is on show.
    page.click("tab-story").await;
    page.choose("scenario", "crash-after-commit").await;
    for _ in 0..6 {
        page.click("step").await;
    }
    let all = page.get("log").child_element_count();
    assert!(all >= 10, "{all} lines");
    assert!(page.get("log-filter-error").hidden());

    page.type_into("log-filter", "#0").await;
    let only = page.get("log").child_element_count();
    assert!(only > 0 && only < all, "{only} of {all}");
    assert!(!page.text("log").contains("will crash right after"));

    page.type_into("log-filter", "<b>0</b>").await;
    assert!(!page.get("log-filter-error").hidden());
    assert!(page.text("log-filter-error").contains("not a message id"));
    assert_eq!(
        page.get("log").child_element_count(),
        all,
        "no filter applies"
    );

    // A message id in a line filters the log to that message.
    page.get("log-msg").click();
    tick().await;
    assert_eq!(page.value("log-filter"), "#0");
    assert_eq!(page.get("log").child_element_count(), only);

    page.type_into("log-filter", "12345").await;
    assert!(page
        .text("log")
        .contains("No step in the log is about that message"));
    // Typing in the field is not a shortcut.
    page.type_into("log-filter", "").await;
    assert!(page.get("log-filter-error").hidden());
}

#[wasm_bindgen_test]
async fn a_message_id_in_the_log_opens_its_history_in_order() {
    let page = Mounted::new().await;
    // The event log follows the run while its tab is on show.
    page.click("tab-story").await;
    page.choose("scenario", "crash-after-commit").await;
    assert!(!page.has("lineage"), "no history until one is asked for");
    for _ in 0..6 {
        page.click("step").await;
    }
    page.get("log-msg").click();
    tick().await;
    assert!(!page.get("lineage").hidden());
    assert_eq!(page.text("lineage-title"), "History of #0 (up to step 6)");
    let rows = page
        .root
        .query_selector_all("[data-testid='lineage-row']")
        .expect("valid selector");
    let rows: Vec<(String, String)> = (0..rows.length())
        .filter_map(|i| rows.item(i))
        .map(|n| {
            let el: web_sys::Element = n.unchecked_into();
            (
                el.get_attribute("data-lane").unwrap_or_default(),
                el.text_content().unwrap_or_default(),
            )
        })
        .collect();
    let mut at = 0;
    for (lane, needle) in [
        ("database", "committed"),
        ("consumer", "crash"),
        ("broker", "lease"),
        ("broker", "attempt 2"),
        ("database", "committed"),
        ("broker", "ack"),
    ] {
        let found = rows[at..]
            .iter()
            .position(|(l, t)| l == lane && t.contains(needle))
            .unwrap_or_else(|| panic!("no {lane} row with {needle:?} after row {at}: {rows:#?}"));
        at += found + 1;
    }
    page.click("lineage-close").await;
    assert!(
        page.get("lineage").hidden(),
        "closed, the history tab shows its hint"
    );
    assert!(!page.get("history-hint").hidden());
    // Another tab unmounts the history: it is built again only when asked for.
    page.click("tab-counters").await;
    assert!(!page.has("lineage"));
}

#[wasm_bindgen_test]
async fn pause_on_breach_stops_at_the_duplicate_and_names_the_message() {
    let page = Mounted::new().await;
    page.choose("scenario", "crash-after-commit").await;
    assert!(
        !page.has("invariants"),
        "mounted only while its tab is on show"
    );
    page.click("tab-invariants").await;
    assert!(page.text("invariant-effect-once-verdict").contains("holds"));
    assert!(page.text("invariant-no-loss-verdict").contains("holds"));
    let pause: HtmlInputElement = page.get("invariants-pause").unchecked_into();
    pause.click();
    tick().await;
    assert!(pause.checked());
    page.choose("speed", "20").await;
    page.click("play").await;
    for _ in 0..100 {
        if page.text("play") != "Pause" {
            break;
        }
        sleep(50).await;
    }
    assert_ne!(page.text("play"), "Pause", "playing stopped");
    assert_eq!(page.text("step-index"), "6", "the duplicate's step");
    assert_eq!(page.text("duplicate-effects"), "1");
    assert!(page
        .text("invariant-effect-once-verdict")
        .contains("broken"));
    assert!(
        page.text("invariant-effect-once")
            .contains("first broke at step 6"),
        "{}",
        page.text("invariant-effect-once")
    );
    assert_eq!(page.text("invariant-effect-once-msg"), "#0");
    assert!(page.text("invariant-no-loss-verdict").contains("holds"));
    // The message id opens its history.
    page.click("invariant-effect-once-msg").await;
    assert!(!page.get("lineage").hidden());
    assert!(page.text("lineage-title").starts_with("History of #0"));
}

#[wasm_bindgen_test]
async fn log_scenarios_show_partition_lanes_and_member_controls() {
    let page = Mounted::new().await;
    assert!(page.get("tab-logs").hidden(), "the burst has no log");
    for name in ["log-commit-modes", "log-consumer-groups"] {
        page.choose("scenario", name).await;
        assert!(!page.get("tab-logs").hidden(), "{name}");
        page.click("tab-logs").await;
        assert!(!page.get("logs").hidden(), "{name}");
        for _ in 0..60 {
            page.click("step").await;
        }
        assert!(
            page.number("log-appended") > 0.0,
            "{name} at step {}: {}",
            page.text("step-index"),
            page.text("logs")
        );
        let lane = page.text("group-0-partition-0");
        assert!(
            lane.starts_with("P0 · offsets ") && lane.contains(" · lag "),
            "{name}: {lane}"
        );
    }
    let members = page.text("group-0-members");
    let (up, all) = members
        .trim_end_matches(" members up")
        .split_once(" / ")
        .map(|(a, b)| {
            (
                a.parse::<u32>().expect("up"),
                b.parse::<u32>().expect("all"),
            )
        })
        .expect("n / m members up");
    page.click("group-0-member-0-crash").await;
    assert_eq!(
        page.text("group-0-members"),
        format!("{} / {all} members up", up - 1)
    );
    page.click("group-0-add-member").await;
    assert!(page
        .text("group-0-members")
        .ends_with(&format!("/ {} members up", all + 1)));
    page.click("group-0-replay").await;
    assert!(!page.has("error-note"), "{}", page.text("error-note"));
    for _ in 0..200 {
        page.click("step").await;
    }
    assert!(page.number("log-rebalances") >= 1.0);
    page.choose("scenario", "burst").await;
    assert!(page.get("tab-logs").hidden());
    assert!(!page.has("logs"), "the logs tab closed with the log");
}

/// Types `value` into a parameters field and fires `change` (what leaving the field does).
async fn enter(page: &Mounted, testid: &str, value: &str) {
    let input: HtmlInputElement = page.get(testid).unchecked_into();
    input.set_value(value);
    fire(&input, "change");
    tick().await;
}

#[wasm_bindgen_test]
async fn parameters_apply_on_change_explain_bad_values_and_follow_step_back() {
    let page = Mounted::new().await;
    page.choose("scenario", "mm1").await;
    assert!(
        !page.has("parameters"),
        "mounted the first time its tab is shown"
    );
    page.click("tab-parameters").await;
    assert_eq!(page.value("param-p0-rate"), "0.9");
    assert_eq!(page.value("param-q0-consumers"), "1");
    page.click("step").await;
    enter(&page, "param-q0-consumers", "2").await;
    assert_eq!(page.value("param-q0-consumers"), "2");
    assert!(page.has("consumer-1"), "a second consumer card");
    assert!(
        page.text("params-forecast")
            .contains("capacity μ = 2 msg/s"),
        "{}",
        page.text("params-forecast")
    );
    enter(&page, "param-q0-consumers", "two").await;
    assert_eq!(
        page.text("param-q0-consumers-error"),
        "⚠ “two” is not a number (consumers)."
    );
    assert_eq!(
        page.value("param-q0-consumers"),
        "2",
        "the value in force stays"
    );
    assert!(!page.has("error-note"), "the message is next to the field");
    page.click("back").await;
    assert_eq!(page.text("step-index"), "1");
    assert!(
        page.text("params-forecast")
            .contains("capacity μ = 1 msg/s"),
        "{}",
        page.text("params-forecast")
    );
    assert_eq!(
        page.value("param-q0-consumers"),
        "1",
        "back before the change"
    );
}

#[wasm_bindgen_test]
async fn a_hidden_panel_keeps_what_the_user_typed_and_the_others_leave_the_page() {
    let page = Mounted::new().await;
    // At load: the counters and the story only.
    assert!(page.has("time") && page.has("narration"));
    for absent in [
        "scenario-editor",
        "parameters",
        "invariants",
        "logs",
        "interview",
    ] {
        assert!(!page.has(absent), "{absent} is not mounted at load");
    }
    // A half-edited scenario survives a look at another tab.
    page.click("tab-scenario").await;
    let edited = "{ \"half\": ";
    page.type_into("editor-text", edited).await;
    page.click("tab-invariants").await;
    assert!(page.has("invariants"));
    assert!(page.get("panel-scenario").hidden());
    page.click("tab-scenario").await;
    assert_eq!(page.value("editor-text"), edited);
    // The invariants left with their tab; playing does not bring them back.
    assert!(!page.has("invariants"));
    page.click("step").await;
    assert!(!page.has("invariants"));
}
