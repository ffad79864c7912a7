//! How a refused scenario, command or link is worded in each language.
//!
//! The checks in [`crate::scenario`] say what is wrong in English, in a closed set of
//! sentences with a few blanks (a name, a number, a limit). Keeping those sentences as
//! the one source of truth keeps the checks readable where they are made; this module
//! gives each sentence its Spanish form, filling the same blanks. A sentence missing here
//! is shown in English rather than garbled, and `tests/refusal_lang.rs` refuses a set of
//! broken scenarios covering every check and fails if any comes out untranslated.

use crate::lang::Lang;
use crate::scenario::ScenarioError;

/// Each English sentence with its blanks (`{}`) and the Spanish sentence with the same
/// blanks in the same order. Longer, more specific patterns come before shorter ones.
const SENTENCES: &[(&str, &str)] = &[
    ("must be a finite number", "debe ser un número finito"),
    (
        "must be between {} and {} (got {})",
        "debe estar entre {} y {} (se recibió {})",
    ),
    ("is longer than {} characters", "tiene más de {} caracteres"),
    (
        "contains an invisible control character (U+{})",
        "contiene un carácter de control invisible (U+{})",
    ),
    ("at most {} entries", "admite como mucho {} elementos"),
    ("is larger than 1 MiB", "ocupa más de 1 MiB"),
    (
        "is not a scenario: a scenario is a JSON object, written between { and }",
        "no es un escenario: un escenario es un objeto JSON, escrito entre { y }",
    ),
    (
        "is not valid scenario JSON: {}",
        "no es un escenario JSON válido: {}",
    ),
    ("must not be empty", "no puede estar vacío"),
    // Compare mode's variants (core/src/compare.rs).
    (
        "does not make a valid scenario: {}",
        "no da un escenario válido: {}",
    ),
    ("at most {} changes", "como mucho {} cambios"),
    ("a path has 1 to {} characters", "una ruta tiene de 1 a {} caracteres"),
    (
        "{} names no setting (an empty list?)",
        "{} no nombra ningún ajuste (¿una lista vacía?)",
    ),
    ("{}: a list wants an index or *", "{}: una lista pide un índice o *"),
    (
        "index {} is past the end (1 entry)",
        "el índice {} está fuera de la lista (1 elemento)",
    ),
    (
        "index {} is past the end ({} entries)",
        "el índice {} está fuera de la lista ({} elementos)",
    ),
    ("{}: this setting has no parts", "{}: este ajuste no tiene partes"),
    (
        "changes nothing: side B would run exactly as side A",
        "no cambia nada: el lado B se ejecutaría exactamente como el lado A",
    ),
    (
        "side B must keep side A's seed",
        "el lado B debe conservar la semilla del lado A",
    ),
    (
        "side B must keep side A's producers",
        "el lado B debe conservar los productores del lado A",
    ),
    (
        "side B must keep side A's arrivals, count, payload and script",
        "el lado B debe conservar las llegadas, el número, la carga y el guion del lado A",
    ),
    (
        "side B must keep side A's scheduled commands",
        "el lado B debe conservar los comandos programados del lado A",
    ),
    ("{} is not KEY=VALUE", "{} no tiene la forma CLAVE=VALOR"),
    (
        "{} is used twice (replicas and unnamed consumers are numbered)",
        "{} aparece dos veces (las réplicas y los consumidores sin nombre se numeran)",
    ),
    (
        "{} is used twice (unnamed producers are numbered P1, P2…)",
        "{} aparece dos veces (los productores sin nombre se numeran P1, P2…)",
    ),
    ("{} is used twice", "{} aparece dos veces"),
    (
        "{} is already the name of a queue, exchange or log",
        "{} ya es el nombre de una cola, un exchange o un log",
    ),
    (
        "{} is already the name of a queue or exchange",
        "{} ya es el nombre de una cola o un exchange",
    ),
    ("needs at least one producer", "necesita al menos un productor"),
    ("needs at least one queue or log", "necesita al menos una cola o un log"),
    (
        "needs at least one consumer or consumer group",
        "necesita al menos un consumidor o un grupo de consumidores",
    ),
    (
        "consumers read queues, and there is none",
        "los consumidores leen colas, y no hay ninguna",
    ),
    (
        "all consumers of a queue must use the same ack mode",
        "todos los consumidores de una cola deben confirmar (ack) del mismo modo",
    ),
    (
        "at most {} consumers in all (replicas included)",
        "como mucho {} consumidores en total (réplicas incluidas)",
    ),
    (
        "a group cannot write to the log it reads",
        "un grupo no puede escribir en el log que lee",
    ),
    (
        "records would go round the logs {} without end",
        "los registros darían vueltas sin fin por los logs {}",
    ),
    (
        "a group cannot dead-letter to its own log",
        "un grupo no puede enviar sus mensajes muertos a su propio log",
    ),
    (
        "a group supports none or ignore_stale",
        "un grupo admite none o ignore_stale",
    ),
    (
        "needs an output log and commit after_processing",
        "necesita un log de salida y commit after_processing",
    ),
    (
        "a log only grows: it has {} partitions, give more",
        "un log solo crece: tiene {} particiones, indica más",
    ),
    (
        "{} members and {} joins: at most {} in a group",
        "{} miembros y {} incorporaciones: como mucho {} en un grupo",
    ),
    (
        "there is no queue, exchange or log {}",
        "no existe la cola, el exchange ni el log {}",
    ),
    ("there is no queue {}", "no existe la cola {}"),
    ("there is no log {}", "no existe el log {}"),
    (
        "there is no consumer group {}",
        "no existe el grupo de consumidores {}",
    ),
    (
        "there is no consumer {} (there are {})",
        "no existe el consumidor {} (hay {})",
    ),
    (
        "there is no producer {} (there are {})",
        "no existe el productor {} (hay {})",
    ),
    ("there is no producer {}", "no existe el productor {}"),
    (
        "there is no member {} (there are {})",
        "no existe el miembro {} (hay {})",
    ),
    ("there is no member {}", "no existe el miembro {}"),
    (
        "queue {} has no dead-letter queue: there is nothing to redrive",
        "la cola {} no tiene cola de mensajes muertos: no hay nada que reenviar",
    ),
    ("queue {} has no consumers", "la cola {} no tiene consumidores"),
    (
        "no consumer calls dependency {}",
        "ningún consumidor llama a la dependencia {}",
    ),
    (
        "this producer has no outbox: there is no relay to crash",
        "este productor no tiene bandeja de salida (outbox): no hay relay que hacer caer",
    ),
    (
        "this producer does not commit then publish: there is no publish after its commit to crash before",
        "este productor no confirma su estado y luego publica (commit_then_publish): no hay \
         tras su commit antes de la cual caer",
    ),
    (
        "this producer does not wait for publisher confirms: there is no confirm to lose",
        "este productor no espera confirmaciones del broker: no hay confirmación que perder",
    ),
    (
        "the producer never stops: give it a count, end its schedule with rate 0, or set end_s",
        "el productor no se detiene nunca: dale un número de mensajes (count), termina su \
         programa con tasa 0 o fija end_s",
    ),
    (
        "would publish about {} messages; the limit is {} (set a count or end_s)",
        "publicaría unos {} mensajes; el límite es {} (fija count o end_s)",
    ),
    (
        "would need about {} message copies; the limit is {} (fanout and publish retries multiply each message)",
        "necesitaría unas {} copias de mensajes; el límite es {} (el fanout y los reintentos \
         de publicación multiplican cada mensaje)",
    ),
    (
        "would need about {} log records; the limit is {} (each group with an output log writes one per record it reads)",
        "necesitaría unos {} registros de log; el límite es {} (cada grupo con log de salida \
         escribe uno por cada registro que lee)",
    ),
    (
        "would need about {} steps; the limit is {} (every delivery attempt is a step; lower the count or the retries)",
        "necesitaría unos {} pasos; el límite es {} (cada intento de entrega es un paso; \
         reduce el número de mensajes o los reintentos)",
    ),
    (
        "would need about {} message copies held at once; the limit is {} (arrivals beyond the consumers' capacity pile up in memory)",
        "necesitaría unas {} copias retenidas a la vez; el límite es {} (lo que llega por \
         encima de la capacidad de los consumidores se acumula en memoria)",
    ),
    ("there is no dependency {}", "no existe la dependencia {}"),
    (
        "a dependency needs a name (consumers call it by name)",
        "una dependencia necesita un nombre (los consumidores la llaman por su nombre)",
    ),
    (
        "the aggregated mode does not model logs and consumer groups",
        "el modo agregado no modela logs ni grupos de consumidores",
    ),
    (
        "the aggregated mode does not model dependencies and their timeouts",
        "el modo agregado no modela dependencias ni sus tiempos de espera",
    ),
    (
        "the aggregated mode does not model replay windows",
        "el modo agregado no modela ventanas de repetición",
    ),
    (
        "the aggregated mode does not model publish permissions",
        "el modo agregado no modela permisos de publicación",
    ),
    (
        "the aggregated mode does not model scripted messages",
        "el modo agregado no modela mensajes con guion",
    ),
    (
        "the aggregated mode does not model outboxes and relays",
        "el modo agregado no modela bandejas de salida (outbox) ni sus relays",
    ),
    (
        "the aggregated mode does not model publish retries that store a message again",
        "el modo agregado no modela reintentos de publicación que guardan el mensaje otra vez",
    ),
    (
        "the aggregated mode does not model poison messages",
        "el modo agregado no modela mensajes envenenados",
    ),
    (
        "the aggregated mode does not model message expiry or age limits",
        "el modo agregado no modela la caducidad de mensajes ni los límites de antigüedad",
    ),
    (
        "the aggregated mode does not model a broker restart on SQS, whose received messages stay hidden until their visibility timeout",
        "el modo agregado no modela un reinicio del broker en SQS, cuyos mensajes recibidos \
         siguen ocultos hasta que vence su tiempo de visibilidad",
    ),
    (
        "the aggregated mode does not model a broker restart in a durable queue that both persistent and transient messages reach",
        "el modo agregado no modela un reinicio del broker en una cola durable a la que llegan \
         mensajes persistentes y transitorios a la vez",
    ),
    (
        "the aggregated mode does not model handler failures and retries",
        "el modo agregado no modela fallos del manejador ni reintentos",
    ),
    (
        "the aggregated mode does not model ordered processing",
        "el modo agregado no modela el procesamiento en orden",
    ),
    (
        "the aggregated mode does not model RabbitMQ's automatic acknowledgement, which pushes every waiting message to the consumer at once",
        "el modo agregado no modela el ack automático de RabbitMQ, que entrega de golpe al \
         consumidor todos los mensajes que esperan",
    ),
    (
        "the aggregated mode does not model a lease that can run out while the consumer still holds the message (redeliveries of work under way)",
        "el modo agregado no modela una reserva (lease) que puede vencer mientras el \
         consumidor aún tiene el mensaje (reentregas de trabajo en curso)",
    ),
    (
        "a positive rate must be at least {} (use 0 to stop)",
        "una tasa positiva debe ser al menos {} (usa 0 para detenerlo)",
    ),
    ("needs 1 to {} segments", "necesita de 1 a {} tramos"),
    (
        "the first segment must start at 0",
        "el primer tramo debe empezar en 0",
    ),
    (
        "segments must start in increasing order",
        "los tramos deben empezar en orden creciente",
    ),
    (
        "script times must not decrease",
        "los instantes del guion no pueden retroceder",
    ),
    (
        "this producer follows a script; its arrivals cannot change",
        "este productor sigue un guion; sus llegadas no se pueden cambiar",
    ),
    (
        "amounts must be between 0 and {}",
        "los importes deben estar entre 0 y {}",
    ),
    (
        "after_step and at_us must not decrease",
        "after_step y at_us no pueden retroceder",
    ),
    ("are not in step order", "no están en orden de paso"),
    (
        "too many commands in one run; reset to start again",
        "demasiadas órdenes en una ejecución; reinicia para empezar de nuevo",
    ),
    (
        "the run has ended: it reached its work budget",
        "la ejecución ha terminado: alcanzó su presupuesto de trabajo",
    ),
    ("the run has ended ({})", "la ejecución ha terminado ({})"),
    (
        "is not a field of version 1 (its scheduled list is `faults`)",
        "no es un campo de la versión 1 (su lista programada es `faults`)",
    ),
    (
        "{} is not supported (this build reads versions 1 to {})",
        "la versión {} no está admitida (este programa lee las versiones 1 a {})",
    ),
];

/// The sentences a share link is refused with (whole sentences, for the page to quote).
const LINK_SENTENCES: &[(&str, &str)] = &[
    (
        "This is not a Broker Lab link: it has no format version.",
        "Esto no es un enlace de Broker Lab: no indica la versión de su formato.",
    ),
    (
        "This is not a Broker Lab link: its format version ({}) is not one Broker Lab has made.",
        "Esto no es un enlace de Broker Lab: la versión de su formato ({}) no es ninguna que Broker Lab haya usado.",
    ),
    (
        "The link is too long ({} characters; at most {}).",
        "El enlace es demasiado largo ({} caracteres; como mucho {}).",
    ),
    (
        "The link was made by a newer Broker Lab (format {}); this one reads formats {} and {}.",
        "El enlace se hizo con un Broker Lab más reciente (formato {}); este lee los formatos {} y {}.",
    ),
    (
        "The link is damaged: it is not valid URL-safe base64 (was it cut short?).",
        "El enlace está dañado: no es base64 válido para direcciones (¿se cortó?).",
    ),
    (
        "The link is damaged: its compressed data is broken (was it cut short?).",
        "El enlace está dañado: sus datos comprimidos están rotos (¿se cortó?).",
    ),
    (
        "The link unpacks to more than {} MiB: refused.",
        "El enlace se descomprime en más de {} MiB: rechazado.",
    ),
    (
        "The link names a scenario this Broker Lab does not have: “{}”.",
        "El enlace nombra un escenario que este Broker Lab no tiene: «{}».",
    ),
    (
        "The link must name a built-in scenario or carry one, not both or neither.",
        "El enlace debe nombrar un escenario incorporado o llevar uno dentro, no ambas cosas ni ninguna.",
    ),
    (
        "The link points at step {}, past the last step a link may show ({}).",
        "El enlace apunta al paso {}, más allá del último que un enlace puede mostrar ({}).",
    ),
    (
        "The link hides scheduled fault {}, but its scenario schedules only {}.",
        "El enlace oculta el fallo programado {}, pero su escenario solo programa {}.",
    ),
];

/// serde's own words inside "is not valid scenario JSON: …", most specific first.
const SERDE: &[(&str, &str)] = &[
    (
        "unknown field {}, expected one of {} at line {} column {}",
        "campo desconocido {}; se esperaba uno de {} en la línea {}, columna {}",
    ),
    (
        "unknown field {}, expected {} at line {} column {}",
        "campo desconocido {}; se esperaba {} en la línea {}, columna {}",
    ),
    (
        "unknown variant {}, expected one of {} at line {} column {}",
        "valor desconocido {}; se esperaba uno de {} en la línea {}, columna {}",
    ),
    (
        "unknown variant {}, expected {} at line {} column {}",
        "valor desconocido {}; se esperaba {} en la línea {}, columna {}",
    ),
    (
        "missing field {} at line {} column {}",
        "falta el campo {} en la línea {}, columna {}",
    ),
    (
        "invalid type: {}, expected {} at line {} column {}",
        "tipo no válido: {}; se esperaba {} en la línea {}, columna {}",
    ),
    (
        "invalid value: {}, expected {} at line {} column {}",
        "valor no válido: {}; se esperaba {} en la línea {}, columna {}",
    ),
    (
        "duplicate field {} at line {} column {}",
        "campo repetido {} en la línea {}, columna {}",
    ),
    (
        "EOF while parsing a value at line {} column {}",
        "el texto termina antes de tiempo en la línea {}, columna {}",
    ),
    (
        "EOF while parsing an object at line {} column {}",
        "el texto termina antes de cerrar un objeto en la línea {}, columna {}",
    ),
    (
        "EOF while parsing a list at line {} column {}",
        "el texto termina antes de cerrar una lista en la línea {}, columna {}",
    ),
    (
        "EOF while parsing a string at line {} column {}",
        "el texto termina antes de cerrar un texto entre comillas en la línea {}, columna {}",
    ),
    (
        "expected value at line {} column {}",
        "se esperaba un valor JSON en la línea {}, columna {}",
    ),
    (
        "expected ident at line {} column {}",
        "se esperaba true, false o null en la línea {}, columna {}",
    ),
    (
        "number out of range at line {} column {}",
        "número fuera de rango en la línea {}, columna {}",
    ),
    (
        "invalid number at line {} column {}",
        "número no válido en la línea {}, columna {}",
    ),
    (
        "recursion limit exceeded at line {} column {}",
        "demasiados niveles anidados en la línea {}, columna {}",
    ),
    (
        "key must be a string at line {} column {}",
        "las claves deben ir entre comillas en la línea {}, columna {}",
    ),
    (
        "invalid escape at line {} column {}",
        "secuencia de escape no válida en la línea {}, columna {}",
    ),
    (
        "control character (\\u0000-\\u001F) found while parsing a string at line {} column {}",
        "carácter de control dentro de un texto entre comillas en la línea {}, columna {}",
    ),
    (
        "expected {} at line {} column {}",
        "se esperaba {} en la línea {}, columna {}",
    ),
    (
        "trailing comma at line {} column {}",
        "sobra una coma en la línea {}, columna {}",
    ),
    (
        "trailing characters at line {} column {}",
        "sobran caracteres al final en la línea {}, columna {}",
    ),
    (
        "key must be a string at line {} column {}",
        "las claves deben ir entre comillas en la línea {}, columna {}",
    ),
    ("{} at line {} column {}", "{} en la línea {}, columna {}"),
    // Decoding a parsed document (`serde_json::from_value`) names no line.
    (
        "invalid type: {}, expected {}",
        "tipo no válido: {}; se esperaba {}",
    ),
    (
        "invalid value: {}, expected {}",
        "valor no válido: {}; se esperaba {}",
    ),
    (
        "invalid length {}, expected {}",
        "longitud no válida {}; se esperaba {}",
    ),
    ("missing field {}", "falta el campo {}"),
    ("duplicate field {}", "campo repetido {}"),
    (
        "unknown field {}, expected one of {}",
        "campo desconocido {}; se esperaba uno de {}",
    ),
    (
        "unknown variant {}, expected one of {}",
        "valor desconocido {}; se esperaba uno de {}",
    ),
    (
        "unknown field {}, expected {}",
        "campo desconocido {}; se esperaba {}",
    ),
    (
        "unknown variant {}, expected {}",
        "valor desconocido {}; se esperaba {}",
    ),
    ("missing field {}", "falta el campo {}"),
    (
        "invalid type: {}, expected {}",
        "tipo no válido: {}; se esperaba {}",
    ),
];

/// serde_json's words for broken JSON, in plain English: the page says them to people
/// who may never have read a parser's message ("EOF while parsing a value").
const SYNTAX_EN: &[(&str, &str)] = &[
    (
        "EOF while parsing a value at line {} column {}",
        "the text ends too early, at line {}, column {}",
    ),
    (
        "EOF while parsing an object at line {} column {}",
        "the text ends before an object is closed with }, at line {}, column {}",
    ),
    (
        "EOF while parsing a list at line {} column {}",
        "the text ends before a list is closed with ], at line {}, column {}",
    ),
    (
        "EOF while parsing a string at line {} column {}",
        "the text ends inside a quoted text, at line {}, column {}",
    ),
    (
        "expected value at line {} column {}",
        "a JSON value was expected at line {}, column {}",
    ),
    (
        "expected ident at line {} column {}",
        "true, false or null was expected at line {}, column {}",
    ),
    (
        "number out of range at line {} column {}",
        "a number out of range at line {}, column {}",
    ),
    (
        "invalid number at line {} column {}",
        "an invalid number at line {}, column {}",
    ),
    (
        "recursion limit exceeded at line {} column {}",
        "too many nested levels at line {}, column {}",
    ),
    (
        "key must be a string at line {} column {}",
        "keys must be in quotes, at line {}, column {}",
    ),
    (
        "invalid escape at line {} column {}",
        "an invalid escape sequence at line {}, column {}",
    ),
    (
        "control character (\\u0000-\\u001F) found while parsing a string at line {} column {}",
        "a control character inside a quoted text at line {}, column {}",
    ),
    (
        "trailing comma at line {} column {}",
        "a comma too many at line {}, column {}",
    ),
    (
        "trailing characters at line {} column {}",
        "more text after the end of the JSON, at line {}, column {}",
    ),
];

/// `text` with serde_json's words for broken JSON, wherever they start in it, said in
/// plain English ([`SYNTAX_EN`]); other text is left as it is.
fn plain_syntax_en(text: &str) -> String {
    for (serde, plain) in SYNTAX_EN {
        let head = serde.split("{}").next().unwrap_or(serde);
        let Some(at) = text.find(head) else {
            continue;
        };
        if let Some(blanks) = fill(serde, &text[at..]) {
            return format!("{}{}", &text[..at], place(plain, &blanks));
        }
    }
    text.to_string()
}

impl ScenarioError {
    /// What is wrong, in `lang` (the field path stays as written in the file).
    pub fn problem_in(&self, lang: Lang) -> String {
        problem_in(&self.problem, lang)
    }

    /// The field and what is wrong with it, in `lang`: "queues[0].name: must not be empty".
    pub fn text_in(&self, lang: Lang) -> String {
        format!("{}: {}", self.field, self.problem_in(lang))
    }
}

/// Why a share link was refused, in `lang`: one of the link's own sentences, or a
/// scenario refusal or serde's words inside one. What the link's own document holds wrong
/// is said for its field in plain words ("the step it shows (step) must be a whole
/// number, 0 or more, not the text "abc"").
pub fn link_problem_in(problem: &str, lang: Lang) -> String {
    const CONTENT: (&str, &str) = (
        "The link's content is not valid: ",
        "El contenido del enlace no es válido: ",
    );
    const SCENARIO: (&str, &str) = (
        "The link's scenario is not valid: ",
        "El escenario del enlace no es válido: ",
    );
    let said = |(en, es): (&'static str, &'static str)| match lang {
        Lang::En => en,
        Lang::Es => es,
    };
    let inner = |prefix: &str| problem.strip_prefix(prefix)?.strip_suffix('.');
    if let Some(serde) = inner(CONTENT.0) {
        return format!("{}{}.", said(CONTENT), link_content_in(serde, lang));
    }
    if let Some(refusal) = inner(SCENARIO.0) {
        return format!("{}{}.", said(SCENARIO), field_problem_in(refusal, lang));
    }
    match lang {
        Lang::En => plain_types(&plain_syntax_en(problem), lang),
        Lang::Es => translate(problem, LINK_SENTENCES).unwrap_or_else(|| problem.to_string()),
    }
}

/// A link document's field, by the name it has in the document (the first part of its
/// path), in plain words.
fn link_field_in(name: &str, lang: Lang) -> Option<&'static str> {
    let (en, es) = match name {
        "step" => ("the step it shows", "el paso que muestra"),
        "at_us" => ("the instant it shows", "el instante que muestra"),
        "seed" => ("the seed", "la semilla"),
        "example" => ("the example's name", "el nombre del ejemplo"),
        "scenario" => ("the scenario", "el escenario"),
        "commands" => ("the list of commands given", "la lista de órdenes dadas"),
        "commands_a" => (
            "side A's list of commands",
            "la lista de órdenes del lado A",
        ),
        "commands_b" => (
            "side B's list of commands",
            "la lista de órdenes del lado B",
        ),
        "variant" => ("what side B changes", "lo que cambia el lado B"),
        "view" => ("the page's view", "la vista de la página"),
        _ => return None,
    };
    Some(match lang {
        Lang::En => en,
        Lang::Es => es,
    })
}

/// serde's words about a link's document (`path: words` when the field is known), in
/// `lang`: the field in plain words, with what it must be and what it holds.
fn link_content_in(serde: &str, lang: Lang) -> String {
    let field = serde.split_once(": ").and_then(|(path, words)| {
        let name = path.split(['.', '[']).next().unwrap_or(path);
        Some((path, link_field_in(name, lang)?, words))
    });
    let Some((path, field, words)) = field else {
        return serde_problem_in(serde, lang);
    };
    // The field itself ("the seed (seed) is…"), or a part of it ("in the page's view,
    // view.lesson.step is…").
    let what = match (path.contains(['.', '[']), lang) {
        (false, _) => format!("{field} ({path})"),
        (true, Lang::En) => format!("in {field}, {path}"),
        (true, Lang::Es) => format!("en {field}, {path}"),
    };
    if let Some(too_large) = too_large_in(words, lang) {
        return format!("{what} {too_large}");
    }
    let Some((found, expected)) = ["invalid type: ", "invalid value: "]
        .iter()
        .find_map(|m| words.strip_prefix(m)?.split_once(", expected "))
    else {
        return format!("{what}: {}", serde_problem_in(words, lang));
    };
    let (marker, wanted, must, not) = match lang {
        Lang::En => ("invalid value: ", "expected ", "must be", "not"),
        Lang::Es => ("valor no válido: ", "se esperaba ", "debe ser", "no"),
    };
    let found = plain_found(&format!("{marker}{found}"), lang);
    let found = found.strip_prefix(marker).unwrap_or(&found);
    let expected = match lang {
        Lang::En => format!("{wanted}{expected}"),
        // serde lists the expected names as "`a` or `b`".
        Lang::Es => format!("{wanted}{}", expected.replace("` or `", "` o `")),
    };
    let expected = plain_types(&expected, lang);
    let expected = expected.strip_prefix(wanted).unwrap_or(&expected);
    format!("{what} {must} {expected}, {not} {found}")
}

/// serde's words for a whole number larger than its field takes ("invalid type: floating
/// point `1180591620717411303424.0`, expected u64": JSON reads a number past the largest
/// integer as a float), in `lang`: "is too large (at most 18,446,744,073,709,551,615)",
/// the bound with the language's separators, without the float. `None` for any other words.
fn too_large_in(serde: &str, lang: Lang) -> Option<String> {
    let (found, expected) = ["invalid type: ", "invalid value: "]
        .iter()
        .find_map(|m| serde.strip_prefix(m)?.split_once(", expected "))?;
    let max: u64 = match expected {
        "u64" => u64::MAX,
        "i64" => i64::MAX as u64,
        // The decoder's own: 32 bits in the page's WebAssembly.
        "usize" => usize::MAX as u64,
        "isize" => isize::MAX as u64,
        "u32" => u32::MAX.into(),
        "i32" => i32::MAX as u64,
        "u16" => u16::MAX.into(),
        "i16" => i16::MAX as u64,
        "u8" => u8::MAX.into(),
        "i8" => i8::MAX as u64,
        _ => return None,
    };
    let number = ["integer `", "floating point `"]
        .iter()
        .find_map(|p| found.strip_prefix(p)?.strip_suffix('`'))?;
    // serde writes a float with its digits in full, ".0" after a whole one.
    let whole = number.strip_suffix(".0").unwrap_or(number);
    let too_large = match whole.parse::<u128>() {
        Ok(n) => n > u128::from(max),
        // Compared as integers: `max as f64` may round up to a float that is too large.
        Err(_) => number
            .parse::<f64>()
            .is_ok_and(|x| x.fract() == 0.0 && x > 0.0 && x as u128 > u128::from(max)),
    };
    too_large.then(|| match lang {
        Lang::En => format!(
            "is too large (at most {})",
            crate::lang::grouped(&max.to_string(), Lang::En.thousands())
        ),
        Lang::Es => format!(
            "es demasiado grande (como mucho {})",
            spanish_number(&max.to_string())
        ),
    })
}

/// serde's words about a JSON text in `lang` ("missing field `x` at line 3 column 1").
pub fn serde_problem_in(problem: &str, lang: Lang) -> String {
    let said = match lang {
        Lang::En => plain_syntax_en(problem),
        Lang::Es => translate(problem, SERDE)
            .map(|words| words.replace("` or `", "` o `"))
            .unwrap_or_else(|| problem.to_string()),
    };
    plain_found(&plain_types(&said, lang), lang)
}

/// "field: problem" (a [`ScenarioError`] written out) with its problem in `lang`.
pub fn field_problem_in(text: &str, lang: Lang) -> String {
    match text.split_once(": ") {
        Some((field, problem)) => format!("{field}: {}", problem_in(problem, lang)),
        None => problem_in(text, lang),
    }
}

/// An English problem sentence of the core in `lang`; unknown sentences stay English.
pub fn problem_in(problem: &str, lang: Lang) -> String {
    const EITHER: (&str, &str) = (
        "; the aggregated mode cannot take it either: ",
        "; el modo agregado tampoco puede con él: ",
    );
    if let Some(spanish) = aggregated_in(problem, lang) {
        return spanish;
    }
    if let Some(too_large) = too_large_in(problem, lang) {
        return too_large;
    }
    if let (Lang::Es, Some((over, why))) = (lang, problem.split_once(EITHER.0)) {
        return format!(
            "{}{}{}",
            problem_in(over, lang),
            EITHER.1,
            problem_in(why, lang)
        );
    }
    let said = match lang {
        Lang::En => plain_syntax_en(problem),
        // serde's own words stand alone for a field it could not decode ("seed: invalid
        // type: null, expected u64").
        Lang::Es => translate(problem, SENTENCES)
            .map(|s| serde_in_spanish(&s))
            .or_else(|| translate(problem, SERDE).map(|w| w.replace("` or `", "` o `")))
            .unwrap_or_else(|| problem.to_string()),
    };
    plain_found(&plain_types(&said, lang), lang)
}

/// serde names what it met by its JSON kind and quotes it ("invalid type: string
/// \"five\"", "invalid value: integer `-1`"): in plain words, the value as it was written
/// ("invalid value: -1", "invalid type: the text \"five\"").
pub fn plain_found(text: &str, lang: Lang) -> String {
    let (markers, the_text, object, list): ([&str; 2], &str, &str, &str) = match lang {
        Lang::En => (
            ["invalid type: ", "invalid value: "],
            "the text \"",
            "an object",
            "a list",
        ),
        Lang::Es => (
            ["tipo no válido: ", "valor no válido: "],
            "el texto \"",
            "un objeto",
            "una lista",
        ),
    };
    let Some((at, marker)) = markers
        .iter()
        .filter_map(|m| text.find(m).map(|at| (at, *m)))
        .min()
    else {
        return text.to_string();
    };
    let (head, found) = text.split_at(at + marker.len());
    let quoted = |prefix: &str| {
        let rest = found.strip_prefix(prefix)?;
        let end = rest.find('`')?;
        // A number the way the language writes it ("1,5" in Spanish).
        let value = match lang {
            Lang::En => rest[..end].to_string(),
            Lang::Es => spanish_number(&rest[..end]),
        };
        Some(format!("{head}{value}{}", &rest[end + 1..]))
    };
    if let Some(plain) = ["integer `", "floating point `", "boolean `"]
        .iter()
        .find_map(|p| quoted(p))
    {
        return plain;
    }
    if let Some(rest) = found.strip_prefix("string \"") {
        return format!("{head}{the_text}{rest}");
    }
    for (word, plain) in [("map", object), ("sequence", list), ("unit value", "null")] {
        if let Some(rest) = found.strip_prefix(word) {
            if rest.starts_with([',', ';']) || rest.is_empty() {
                return format!("{head}{plain}{rest}");
            }
        }
    }
    text.to_string()
}

/// serde names what it expected by Rust's types ("expected f64", "expected struct
/// Scenario with 18 elements"): in plain words for the page ("expected a number").
pub fn plain_types(text: &str, lang: Lang) -> String {
    let (expected, words): (&str, [&str; 7]) = match lang {
        Lang::En => (
            "expected ",
            [
                "a number",
                "a whole number, 0 or more",
                "a whole number",
                "an object",
                "a list",
                "true or false",
                "a text in quotes",
            ],
        ),
        Lang::Es => (
            "se esperaba ",
            [
                "un número",
                "un número entero, 0 o más",
                "un número entero",
                "un objeto",
                "una lista",
                "true o false",
                "un texto entre comillas",
            ],
        ),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(expected) {
        let (before, after) = rest.split_at(at + expected.len());
        out.push_str(before);
        // serde's own phrases with an article ("a sequence") count as one word.
        let after_article = after.strip_prefix("a ").unwrap_or(after);
        let name_end = after_article
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after_article.len());
        let (word, tail) = after_article.split_at(name_end);
        let plain = match word {
            "f64" | "f32" => Some(words[0]),
            "u64" | "u32" | "u16" | "u8" | "usize" => Some(words[1]),
            "i64" | "i32" | "i16" | "i8" | "isize" => Some(words[2]),
            "struct" | "map" => Some(words[3]),
            "sequence" => Some(words[4]),
            "bool" | "boolean" => Some(words[5]),
            "string" => Some(words[6]),
            _ => None,
        }
        .filter(|_| {
            after_article.len() == after.len()
                || matches!(word, "sequence" | "map" | "boolean" | "string")
        });
        rest = match plain {
            // `struct Name`, and serde's " with N elements" after it, are one thing.
            Some(plain) if word == "struct" => {
                out.push_str(plain);
                let tail = tail.trim_start();
                let tail = tail.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
                match tail.strip_prefix(" with ") {
                    Some(t) => t
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .trim_start_matches(" elements"),
                    None => tail,
                }
            }
            Some(plain) => {
                out.push_str(plain);
                tail
            }
            None => after,
        };
    }
    out.push_str(rest);
    out
}

/// The refusal of a message-by-message run for a scenario that runs aggregated (the
/// page or a tool may still show it), in Spanish; `None` for any other sentence.
fn aggregated_in(problem: &str, lang: Lang) -> Option<String> {
    let why = problem
        .strip_prefix("this scenario runs in aggregated mode (")?
        .strip_suffix(
            "), which has no steps to trace or compare one by one: `brokerlab run FILE` gives \
             its report",
        )?;
    (lang == Lang::Es).then(|| {
        format!(
            "este escenario se ejecuta en modo agregado ({}), que no tiene pasos que seguir ni \
             comparar uno a uno: `brokerlab run FICHERO` da su informe",
            aggregated_note_in(why, lang)
        )
    })
}

/// Why a run is aggregated ([`crate::budget::why_aggregated`], "aggregated mode: …")
/// in `lang`; a note of another shape stays as it is.
pub fn aggregated_note_in(note: &str, lang: Lang) -> String {
    const TAIL: &str = "; rates and amounts instead of messages";
    let why = note
        .strip_prefix("aggregated mode: ")
        .and_then(|n| n.strip_suffix(TAIL));
    match (lang, why) {
        (Lang::Es, Some(why)) => {
            let why = match why.strip_prefix("message by message it ") {
                Some(over) => format!("mensaje a mensaje {}", problem_in(over, lang)),
                None if why == "chosen by the scenario (mode: aggregated)" => {
                    "lo pide el escenario (mode: aggregated)".to_string()
                }
                None => why.to_string(),
            };
            format!("modo agregado: {why}; tasas y cantidades en lugar de mensajes")
        }
        _ => note.to_string(),
    }
}

/// The blank after "JSON válido: " (or "escenario válido: ") holds serde's words: those get
/// their own table.
fn serde_in_spanish(sentence: &str) -> String {
    const AFTER: [&str; 2] = [
        "no es un escenario JSON válido: ",
        "no da un escenario válido: ",
    ];
    for after in AFTER {
        if let Some(serde) = sentence.strip_prefix(after) {
            let words = translate(serde, SERDE).unwrap_or_else(|| serde.to_string());
            // serde lists the expected names as "`a` or `b`".
            return format!("{after}{}", words.replace("` or `", "` o `"));
        }
    }
    sentence.to_string()
}

/// The first pattern `text` matches, with its blanks moved into the translation (into
/// Spanish: the only language translated to); a blank that is a plain number is written
/// the Spanish way ("315.360.000", "0,000001"), as the rest of the page writes them.
fn translate(text: &str, table: &[(&str, &str)]) -> Option<String> {
    table.iter().find_map(|(en, es)| {
        let blanks = fill(en, text)?;
        let blanks: Vec<String> = blanks.iter().map(|b| spanish_number(b)).collect();
        let blanks: Vec<&str> = blanks.iter().map(String::as_str).collect();
        Some(place(es, &blanks))
    })
}

/// `text` with Spanish separators if it is a plain decimal number, else as it is.
fn spanish_number(text: &str) -> String {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !plain(whole) || !plain(fraction) || digits.ends_with('.') {
        return text.to_string();
    }
    let sign = if text.starts_with('-') { "-" } else { "" };
    let fraction = if fraction.is_empty() {
        String::new()
    } else {
        format!(",{fraction}")
    };
    format!("{sign}{}{fraction}", crate::lang::grouped(whole, '.'))
}

/// The blanks of `pattern` as they are in `text`, if `text` has the pattern's shape. A
/// blank takes the shortest text up to the next fixed part, except the last, which takes
/// the rest (names quoted by the core can hold anything, so the fixed part after a blank
/// is searched for from the end when nothing follows it).
fn fill<'t>(pattern: &str, text: &'t str) -> Option<Vec<&'t str>> {
    let parts: Vec<&str> = pattern.split("{}").collect();
    let mut rest = text.strip_prefix(parts[0])?;
    let mut blanks = Vec::with_capacity(parts.len() - 1);
    for (i, part) in parts.iter().enumerate().skip(1) {
        let last = i == parts.len() - 1;
        let at = if last {
            if !rest.ends_with(part) {
                return None;
            }
            rest.len() - part.len()
        } else {
            rest.find(part)?
        };
        blanks.push(&rest[..at]);
        rest = &rest[at + part.len()..];
    }
    rest.is_empty().then_some(blanks)
}

/// `pattern` with its blanks filled in order.
fn place(pattern: &str, blanks: &[&str]) -> String {
    let mut out = String::new();
    for (i, part) in pattern.split("{}").enumerate() {
        if i > 0 {
            out.push_str(blanks.get(i - 1).copied().unwrap_or(""));
        }
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_json_is_said_in_plain_english_too() {
        // The editor said "…: EOF while parsing a value at line 1 column 10" in English
        // while Spanish had plain words.
        let text = "{ \"name\": ";
        let e = crate::Scenario::from_json(text).expect_err("broken");
        assert_eq!(
            e.text_in(Lang::En),
            "scenario: is not valid scenario JSON: the text ends too early, at line 1, column 10"
        );
        assert_eq!(
            serde_problem_in("trailing comma at line 4 column 2", Lang::En),
            "a comma too many at line 4, column 2"
        );
        assert_eq!(
            problem_in(
                "is not valid scenario JSON: missing field `queues`",
                Lang::En
            ),
            "is not valid scenario JSON: missing field `queues`",
            "what is not broken JSON is left as it was"
        );
        for (serde, _) in SYNTAX_EN {
            let said = place(serde, &["3", "7"]);
            assert!(
                !plain_syntax_en(&said).contains(" at line 3 column 7"),
                "{said}"
            );
        }
    }

    #[test]
    fn blanks_move_into_the_spanish_sentence() {
        assert_eq!(
            problem_in("must be between 0 and 1 (got 2)", Lang::Es),
            "debe estar entre 0 y 1 (se recibió 2)"
        );
        assert_eq!(
            problem_in("there is no queue \"orders\"", Lang::Es),
            "no existe la cola \"orders\""
        );
        assert_eq!(
            problem_in("must be between 0 and 1 (got 2)", Lang::En),
            "must be between 0 and 1 (got 2)"
        );
    }

    #[test]
    fn serde_words_are_translated_too() {
        let en = "is not valid scenario JSON: missing field `queues` at line 3 column 1";
        assert_eq!(
            problem_in(en, Lang::Es),
            "no es un escenario JSON válido: falta el campo `queues` en la línea 3, columna 1"
        );
    }

    #[test]
    fn a_comparison_s_refusals_read_in_spanish() {
        let cases = [
            (
                "does not make a valid scenario: unknown variant `banana`, expected `none` or `inbox`",
                "no da un escenario válido: valor desconocido `banana`; se esperaba `none` o `inbox`",
            ),
            ("index 9 is past the end (2 entries)", "el índice 9 está fuera de la lista (2 elementos)"),
            ("index 99 is past the end (1 entry)", "el índice 99 está fuera de la lista (1 elemento)"),
            ("side B must keep side A's seed", "el lado B debe conservar la semilla del lado A"),
            (
                "changes nothing: side B would run exactly as side A",
                "no cambia nada: el lado B se ejecutaría exactamente como el lado A",
            ),
            ("at most 32 changes", "como mucho 32 cambios"),
        ];
        for (en, es) in cases {
            assert_eq!(problem_in(en, Lang::Es), es);
        }
    }

    #[test]
    fn numbers_in_a_spanish_sentence_take_spanish_separators() {
        assert_eq!(spanish_number("315360000"), "315.360.000");
        assert_eq!(spanish_number("0.000001"), "0,000001");
        assert_eq!(spanish_number("-5"), "-5");
        assert_eq!(spanish_number("1e400"), "1e400");
        assert_eq!(spanish_number("queues[0]"), "queues[0]");
        assert_eq!(spanish_number("3."), "3.");
        assert_eq!(
            serde_problem_in("number out of range at line 14 column 30", Lang::Es),
            "número fuera de rango en la línea 14, columna 30"
        );
        assert_eq!(
            serde_problem_in("expected value at line 1 column 1", Lang::Es),
            "se esperaba un valor JSON en la línea 1, columna 1"
        );
    }

    #[test]
    fn an_unknown_sentence_stays_as_it_was() {
        assert_eq!(problem_in("something new", Lang::Es), "something new");
    }

    #[test]
    fn a_refused_link_is_said_in_spanish_down_to_the_field() {
        let en = "The link's scenario is not valid: queues[0].name: must not be empty.";
        assert_eq!(
            link_problem_in(en, Lang::Es),
            "El escenario del enlace no es válido: queues[0].name: no puede estar vacío."
        );
        let en = "The link is too long (9000 characters; at most 8000).";
        assert_eq!(
            link_problem_in(en, Lang::Es),
            "El enlace es demasiado largo (9.000 caracteres; como mucho 8.000)."
        );
        assert_eq!(link_problem_in(en, Lang::En), en);
        let en = "The link hides scheduled fault 100, but its scenario schedules only 2.";
        assert_eq!(
            link_problem_in(en, Lang::Es),
            "El enlace oculta el fallo programado 100, pero su escenario solo programa 2."
        );
    }

    #[test]
    fn every_pattern_has_the_same_blanks_in_both_languages() {
        for (en, es) in SENTENCES.iter().chain(SERDE).chain(LINK_SENTENCES) {
            assert_eq!(en.matches("{}").count(), es.matches("{}").count(), "{en}");
            assert_ne!(en, es);
        }
    }

    #[test]
    fn rust_type_names_are_said_in_plain_words() {
        let cases = [
            (
                "invalid type: string \"five\", expected f64",
                "invalid type: string \"five\", expected a number",
            ),
            (
                "invalid value: integer `-1`, expected u64",
                "invalid value: integer `-1`, expected a whole number, 0 or more",
            ),
            (
                "invalid length 0, expected struct Scenario with 18 elements",
                "invalid length 0, expected an object",
            ),
            (
                "invalid type: map, expected a sequence at line 3 column 1",
                "invalid type: map, expected a list at line 3 column 1",
            ),
            (
                "unknown variant `x`, expected `a` or `b`",
                "unknown variant `x`, expected `a` or `b`",
            ),
        ];
        for (serde, plain) in cases {
            assert_eq!(plain_types(serde, Lang::En), plain, "{serde}");
        }
        assert_eq!(
            problem_in("is not valid scenario JSON: invalid type: string \"five\", expected f64", Lang::Es),
            "no es un escenario JSON válido: tipo no válido: el texto \"five\"; se esperaba un número"
        );
        // What the editor, a file or a compare variant gets from a decoded document (no
        // line): serde's words and Rust's type names never reach the page, in either
        // language.
        let decoded = [
            (
                "is not valid scenario JSON: invalid value: integer `-1`, expected u64",
                "is not valid scenario JSON: invalid value: -1, expected a whole number, 0 or more",
                "no es un escenario JSON válido: valor no válido: -1; se esperaba un número entero, 0 o más",
            ),
            (
                "is not valid scenario JSON: invalid type: integer `2`, expected a string",
                "is not valid scenario JSON: invalid type: 2, expected a text in quotes",
                "no es un escenario JSON válido: tipo no válido: 2; se esperaba un texto entre comillas",
            ),
            (
                "does not make a valid scenario: invalid type: map, expected a sequence",
                "does not make a valid scenario: invalid type: an object, expected a list",
                "no da un escenario válido: tipo no válido: un objeto; se esperaba una lista",
            ),
            (
                "is not valid scenario JSON: missing field `queues`",
                "is not valid scenario JSON: missing field `queues`",
                "no es un escenario JSON válido: falta el campo `queues`",
            ),
        ];
        for (serde, en, es) in decoded {
            assert_eq!(problem_in(serde, Lang::En), en);
            assert_eq!(problem_in(serde, Lang::Es), es);
        }
    }
}
