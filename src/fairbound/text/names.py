"""First-name detectors for :class:`fairbound.text.GenderNeutralizer`.

The transform of Jourdan et al. (2023) replaces every first name with one neutral name.
Which words are first names is decided by a *detector*: any object with a method
``spans(text) -> list[tuple[int, int]]`` giving the character spans to replace
(:class:`NameDetector`).  Two are provided:

* :class:`NameListDetector` (the default): a bundled list of first names read in context.
  The list is the 1990 US Census first names (public domain, via the ``names`` package,
  MIT) and the gender-informative names of ``nomquamgender`` 0.1.4 (MIT; names seen in at
  least 5 of its sources, at least 50 times, with p(female) at most 0.2 or at least 0.8),
  bundled as ``first_names.txt`` with the licence file beside it; nothing is downloaded.
  A word of the list is a first name only in context: it starts a run of capitalised
  words that is no place, organisation or award.  The rules:

  - a run of capitalised words (joined by spaces, hyphens, initials such as ``S.`` and
    possessives such as ``Rebecca's Tent``) containing a place or organisation cue
    (University, College, Foundation, Award, Prize, Show, Hospital, Street, Valley, Kong,
    ...) or starting with a place prefix (San, Santa, St, Fort, Mount, New, North, ...)
    holds no first name ("Florida Atlantic University", "Hong Kong", "Emmy Awards",
    "Richard Stockton College");
  - month and weekday names, languages and nationalities, and a gazetteer of countries,
    US states and large cities are never first names; the few that are also common first
    names (Georgia, Victoria, Charlotte, Jordan, ...) are names only when a surname
    follows them ("Victoria Beckham"), never alone;
  - a run right after a preposition of place (in, at, from, near, of, ...) or after
    ``the`` is a place or an organisation ("in Florida", "the Carol Burnett Show");
  - only the first word of a run is a first name (and the words hyphenated to it, as in
    "Jean-Philippe"): "Mary Lee" keeps her surname; after a title ("Dr.", "Mr", "Bishop")
    the next word is a first name when a surname follows ("Dr. Derek Ginter") and, alone,
    only when it is not one of the 5,000 most common census surnames ("Dr. Jen", but
    "Dr. Russell");
  - words that are also ordinary English words (Will, Grace, Hope, Summer, Art, ...) are
    first names only when a surname follows ("Grace Kelly", not "Sovereign Grace").

  Measured on the hand-annotated Bias in Bios sample (see ``docs/stability.md``).

* :class:`SpacyNameDetector`: the first word of each PERSON entity of an installed spaCy
  model (an optional extra; the model is never downloaded at run time).

Examples
--------
>>> NameListDetector().names_in("Dustin lives in Chicago; he joined Hong Kong's Emmy Awards.")
['Dustin']
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import Protocol, runtime_checkable

from fairbound.errors import FairboundError


@runtime_checkable
class NameDetector(Protocol):
    """What :class:`~fairbound.text.GenderNeutralizer` needs from a first-name detector."""

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans ``(start, end)`` of the first names in ``text``, in order."""
        ...  # pragma: no cover


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_SKIP_SPAN = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|[@#]\w+")
_SENTENCE_END = re.compile(r"[.!?:;\n]['\")\]\s]*$")


def _words(*chunks: str) -> frozenset[str]:
    return frozenset(w for c in chunks for w in c.split())


MONTHS = _words("january february march april may june july august september october "
                "november december sept")
WEEKDAYS = _words("monday tuesday wednesday thursday friday saturday sunday")
_NATIONS = _words(
    "english french german spanish italian irish scottish welsh british american african "
    "asian european chinese japanese korean indian russian polish greek thai dutch swiss "
    "canadian australian mexican brazilian filipino arabic arab portuguese vietnamese latin "
    "jewish catholic muslim hindu baptist methodist lutheran hispanic latino latina native "
    "swedish norwegian danish finnish turkish persian iranian israeli egyptian nigerian "
    "kenyan pakistani bengali tagalog hebrew yiddish")
#: Places that are never first names here (lower case).
PLACES = _words(
    # US states
    "alabama alaska arizona arkansas california colorado connecticut delaware florida "
    "hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland "
    "massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio "
    "oklahoma oregon pennsylvania tennessee texas utah vermont washington wisconsin wyoming "
    "carolina dakota "
    # countries and regions
    "afghanistan albania algeria argentina armenia austria bangladesh belgium bolivia "
    "brazil bulgaria cambodia cameroon canada chile china colombia croatia cuba cyprus "
    "denmark ecuador egypt england estonia ethiopia europe finland france germany ghana "
    "greece guatemala haiti honduras hungary iceland indonesia iran iraq ireland italy "
    "jamaica japan kenya korea kosovo latvia lebanon libya lithuania malaysia mexico "
    "mongolia morocco nepal netherlands nicaragua nigeria norway pakistan panama peru "
    "philippines poland portugal romania russia rwanda scotland senegal serbia singapore "
    "slovakia slovenia somalia spain sudan sweden switzerland syria taiwan tanzania "
    "thailand tunisia turkey uganda ukraine uruguay venezuela vietnam wales yemen zambia "
    "zimbabwe africa asia america australia antarctica oceania caribbean balkans bali "
    "tobago trinidad iberia scandinavia siberia "
    # large cities
    "london chicago boston dallas houston denver seattle portland miami atlanta detroit "
    "philadelphia baltimore pittsburgh cleveland cincinnati nashville memphis tampa "
    "orlando sacramento toronto montreal vancouver ottawa calgary melbourne brisbane perth "
    "adelaide auckland dublin glasgow edinburgh manchester liverpool birmingham bristol "
    "oxford cambridge berlin munich hamburg vienna prague budapest warsaw moscow kiev kyiv "
    "rome milan naples venice madrid barcelona lisbon amsterdam brussels geneva zurich "
    "stockholm oslo copenhagen helsinki athens istanbul cairo dubai mumbai delhi bangalore "
    "kolkata chennai tokyo osaka kyoto beijing shanghai seoul manila jakarta bangkok "
    "hanoi singapore lagos nairobi johannesburg baghdad tehran karachi lahore brooklyn "
    "manhattan bronx queens hollywood harlem albuquerque phoenix tucson honolulu "
    "anchorage rochester syracuse buffalo albany")
#: Places that are also common first names: names only when a surname follows.
_PLACE_NAMES = _words("georgia virginia victoria charlotte jordan israel india chelsea "
                      "madison lincoln austin florence sydney paris jackson dallas "
                      "savannah phoenix carolina columbia regina adelaide")
#: Capitalised words that often start sentences or titles and are never first names.
_NEVER = _words(
    "the a an in on at to of so do or no oh are is was be am he she it we they his her him "
    "hers their born read patient master general law justice doctor media live long odd "
    "future time special beautiful happy see many blue cross silver bronze gold green black "
    "white red golden christ jesus god lord allah buddha bible english art tai chi yoga "
    # gendered nouns: never a first name
    "men women man woman boy boys girl girls guy guys gal gals lady ladies gentleman sir "
    "madam king queen prince princess actor actress hero heroine "
    "oral sun sea star rock love light life line wonder choice little big second first "
    "premier royal grand saint emmy oscar grammy tony pastor bishop mercy holy trinity "
    # universities and colleges known by one word
    "harvard yale princeton stanford emory duke cornell vanderbilt brown dartmouth "
    "columbia rutgers purdue tufts oberlin berkeley caltech")
_NOT_FIRST = MONTHS | WEEKDAYS | _NATIONS | PLACES | _NEVER

#: First names that are also ordinary words: names only when a surname follows.
AMBIGUOUS = _words(
    "al amber an angel art asia autumn ben bill bob buddy carol carter chance chase china "
    "crystal daisy dale dawn dean destiny drew earnest ed else ernest faith frank gay gene "
    "glen grant guy harmony holly hope hunter in iris ivy jack jean jewel joy ken kim king "
    "lane lee lily long lou love major many mark mason miles my page parker pat pearl penny "
    "prince ray rich rob rod rose royal ruby rusty sandy see so sol sonny sterling sue "
    "summer sunny tommie trinity un val van violet wade ward wes will young america "
    "christian german grace honey precious")

#: Titles after which a word is a first name only if a surname follows or it is rare as
#: a surname.
TITLES = _words("mr mrs ms miss mx dr prof professor doctor rev reverend bishop pastor "
                "rabbi imam judge coach captain capt sen senator chef canon fr father "
                "sister brother sir dame lord lady")

#: Words that make a run of capitalised words a place, an organisation or an award.
ORG_CUES = _words(
    "university universities universidad college colleges school schools institute "
    "institutes academy foundation award awards prize prizes medal show center centre "
    "hospital clinic clinics health medical healthcare society association council church "
    "chapel cathedral temple ministries trust company co inc corp corporation llc llp ltd "
    "pc md dds group partners press records publishing magazine journal review times news "
    "gallery museum theatre theater studio studios hall library festival park street "
    "avenue ave road rd boulevard blvd drive square city county state island islands "
    "valley lake river bay beach creek hill hills mountain mountains falls springs "
    "heights harbor harbour port airport station stadium arena club cafe restaurant hotel "
    "resort salon spa agency bank ventures labs systems solutions technologies network "
    "house books band orchestra ensemble choir quartet productions pictures films tv "
    "radio channel program programme project scholar scholarship fellowship lecture "
    "series conference games cup league district region province kingdom republic "
    "empire coast shield world area conservation reserve forest garden gardens faculty "
    "department dept page kong rica zealand lanka aires angeles vegas york jersey "
    "hampshire mexico orleans dhabi salvador domingo janeiro francisco diego "
    "antonio clara barbara monica cruz jose costa fe centers centres hospitals shelter")
#: First words that make a run a place.
PLACE_PREFIXES = _words("san santa santo sao st saint fort ft mount mt port cape lake new "
                        "north south east west upper lower great la le las los el al rio "
                        "puerto")
#: Words right before a run that make it a place or an organisation.
PLACE_PREPOSITIONS = _words("the in at near from across throughout outside inside around "
                            "via toward towards into of within")


def _read_table(filename: str) -> list[list[str]]:
    text = resources.files("fairbound.text").joinpath(filename).read_text("utf-8")
    return [ln.strip().split("\t") for ln in text.splitlines()
            if ln.strip() and not ln.startswith("#")]


@lru_cache(maxsize=1)
def first_name_counts() -> dict[str, int]:
    """Return the bundled first names (lower case) with how often each was seen.

    Examples
    --------
    >>> c = first_name_counts()
    >>> c["mary"] > c["peta"] > 0
    True
    """
    return {r[0]: int(r[1]) for r in _read_table("first_names.txt")}


def first_names() -> frozenset[str]:
    """Return the bundled list of first names (lower case).

    Returns
    -------
    frozenset of str
        37,589 names: the 1990 US Census first names (public domain) and the
        gender-informative names of ``nomquamgender`` (MIT); see the module docstring.

    Examples
    --------
    >>> "mary" in first_names(), "table" in first_names(), "riddhi" in first_names()
    (True, False, True)
    """
    return _first_name_set()


@lru_cache(maxsize=1)
def _first_name_set() -> frozenset[str]:
    return frozenset(first_name_counts())


@lru_cache(maxsize=1)
def common_surnames() -> dict[str, bool]:
    """Return the 5,000 most common census surnames; True where mostly a surname.

    Examples
    --------
    >>> s = common_surnames()
    >>> s["smith"], s["russell"], "jen" in s
    (True, False, False)
    """
    return {r[0]: r[1] == "1" for r in _read_table("surnames.txt")}


_SEPARATORS = (", ", ", and ", " and ", ", or ", " or ", " & ")
#: Cue words that are also surnames: "Lauryn Hill" is a person, "Chapel Hill" a place.
_SURNAME_CUES = _words("hill hall park lane wood woods street banks ford field fields")

#: A lone first name (no surname, no title) must have been seen this often in the list's
#: sources: rarer entries are mostly words and places ("Vigo", "Ajax").
MIN_COUNT_ALONE = 300


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and not (word.isupper() and len(word) > 1)


def _fold(word: str) -> str:
    """Lower case without accents ("Grégory" -> "gregory")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                   if not unicodedata.combining(c))


class NameListDetector:
    """First names from a word list, read in context (the default detector).

    Parameters
    ----------
    names : iterable of str, optional
        First names (any case); the bundled list by default (see :func:`first_names`).
    context : bool
        Apply the context rules of the module docstring (places, organisations, titles,
        surnames).  ``False``: every capitalised word of the list is a first name (the
        plain list look-up, for comparison).

    Examples
    --------
    >>> d = NameListDetector()
    >>> d.names_in("Dr. Andy Grant met Mary Lee in January at Florida Atlantic University.")
    ['Andy', 'Mary']
    >>> d.spans("Lucy joined.")
    [(0, 4)]
    """

    def __init__(self, names=None, *, context: bool = True) -> None:
        if names is None:
            self.counts = first_name_counts()
        else:
            if isinstance(names, str) or not all(isinstance(n, str) for n in names):
                raise FairboundError("names must be a set of strings", param="names")
            self.counts = {_fold(n): MIN_COUNT_ALONE for n in names}
        self.names = frozenset(self.counts)
        self.context = bool(context)

    def __repr__(self) -> str:
        return f"NameListDetector({len(self.names):,} names, context={self.context})"

    def names_in(self, text: str) -> list[str]:
        """The words :meth:`spans` marks, in order (for reading and tests)."""
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the first names in ``text``."""
        skip = [m.span() for m in _SKIP_SPAN.finditer(text)]
        toks = [m for m in _WORD.finditer(text)
                if not any(s <= m.start() < e for s, e in skip)]
        if not self.context:
            return [m.span() for m in toks
                    if _is_cap(m.group()) and _fold(m.group()) in self.names
                    and _fold(m.group()) not in TITLES]
        runs = list(_runs(text, toks))
        # document-level evidence: words seen as a first name before a surname
        full = {_fold(r[0][0].group()) for r in runs if len(r[0]) > 1}
        out: list[tuple[int, int]] = []
        for k, (run, before, after, start) in enumerate(runs):
            if self._listed(runs, k, text):
                continue
            out.extend(self._run_names(run, before, after, text, full, start))
        return out

    def _is_name_run(self, run) -> bool:
        w = run[0].group()
        return len(w) == 1 or _fold(w) in self.names or _fold(w) in TITLES

    def _no_person(self, run) -> bool:
        """A run that names no person: a lone unknown word, a place or an organisation."""
        low = [_fold(m.group()) for m in run]
        if any(w in ORG_CUES for w in low[1:]) or low[0] in PLACE_PREFIXES:
            return True
        return len(run) == 1 and (low[0] not in self.names or low[0] in _NOT_FIRST)

    def _listed(self, runs, k: int, text: str) -> bool:
        """Whether run ``k`` is an item of a list of brands, places or titles.

        That is: followed by an item that names no person ("Jean Paul Gaultier and
        Versace"), or inside a list opened by an organisation ("American Book Review,
        Meridian, Passages North").
        """
        run = runs[k][0]
        if k + 1 >= len(runs):
            return False
        other = runs[k + 1][0]
        if text[run[-1].end():other[0].start()] not in _SEPARATORS:
            return False
        if self._no_person(other):
            return True
        # in the middle of a list that an organisation opens ("Review, Meridian, Passages")
        if k == 0:
            return False
        left = runs[k - 1][0]
        low = [_fold(m.group()) for m in left]
        return text[left[-1].end():run[0].start()] in _SEPARATORS \
            and any(w in ORG_CUES for w in low)

    # -- one run of capitalised words ---------------------------------------------------
    def _run_names(self, run: list, before: str, after: str, text: str,
                   full: set, sentence_start: bool) -> list[tuple[int, int]]:
        words = [m.group() for m in run]
        low = [_fold(w) for w in words]
        i = 0
        if low[0] == "the" and len(low) > 1 and low[1] in TITLES:
            i = 1
        titled = False
        while i < len(low) and low[i] in TITLES:
            titled, i = True, i + 1
        while i + 1 < len(low) and len(low[i]) == 1:  # "W. Brad Groom", "M. Night"
            i += 1
        if i >= len(low):
            return []
        if "&" in before or after.lstrip().startswith("&"):
            return []  # "Goodwin Chivas & Co", "DuMond & Doran"
        first = low[i]
        # the words of the first name: the first word and those hyphenated to it
        j = i + 1
        while j < len(run) and text[run[j - 1].end():run[j].start()] == "-" \
                and low[j] in self.names:
            j += 1
        rest = low[j:]
        # "Ivano-Frankivsk": a hyphenated compound is one word, not a name and a surname
        compound = bool(rest) and text[run[j - 1].end():run[j].start()] == "-"
        surname_follows = bool(rest) and not compound
        cues = [w for w in rest if w in ORG_CUES]
        # "Lauryn Hill", "Sarah Hall": a cue that is also a surname ends a person's name
        if cues and not (rest == cues[:1] and cues[0] in _SURNAME_CUES
                         and first in self.names and first not in _NOT_FIRST):
            return []
        if first in PLACE_PREFIXES or first in ORG_CUES:
            return []
        if not titled and (before == "the" or (before in PLACE_PREPOSITIONS
                                                and not surname_follows)):
            return []
        if first not in self.names or first in MONTHS or first in WEEKDAYS:
            return []
        if first in _PLACE_NAMES:
            if not surname_follows:
                return []
        elif first in _NOT_FIRST:
            return []
        if first in AMBIGUOUS and not surname_follows and sentence_start:
            return []  # "Will you ...", "Grace is ...": only a name mid-sentence
        if len(first) < 3 and not surname_follows:
            return []  # "Pa.", "Al": an abbreviation more often than a name
        if not surname_follows:
            if re.match(r",\s*[A-Z]{2}\b", after):
                return []  # "Boone, NC": a town and its state
            if titled:
                if first in common_surnames():
                    return []  # "Dr. Russell"
            elif first not in full:
                if common_surnames().get(first) or self.counts[first] < MIN_COUNT_ALONE:
                    return []  # "Barnes has taught", "Vigo"
        return [run[k].span() for k in range(i, j) if _is_cap(words[k])]


def _runs(text: str, toks: list):
    """Runs of capitalised words, with the text just before and after each run.

    A run's first word drops out when it only starts the sentence ("Call Sandra J Wilmot",
    "Follow Kate"): then the dropped word is what comes before the run.
    """
    i = 0
    n = len(toks)
    while i < n:
        m = toks[i]
        if not _is_cap(m.group()):
            i += 1
            continue
        prev_gap = text[toks[i - 1].end():m.start()] if i > 0 else ""
        # "D'Adamo", "Coeur d'Alene", "O'Brien": a surname or a place, never a first name
        particle = i > 0 and prev_gap in ("'", "\u2019") and len(toks[i - 1].group()) == 1
        # "Don't": a contraction
        contraction = (i + 1 < n and text[m.end():toks[i + 1].start()] in ("'", "\u2019")
                       and toks[i + 1].group().lower() in ("t", "ll", "ve", "re", "d", "m"))
        run = [m]
        j = i + 1
        while j < n:
            gap = text[toks[j - 1].end():toks[j].start()]
            w = toks[j].group()
            prev = toks[j - 1].group()
            if gap in (" ", "-") or (gap in (". ", ".") and (len(prev) == 1
                                                            or _fold(prev) in TITLES)):
                if not _is_cap(w):
                    break
                run.append(toks[j])
                j += 1
                continue
            # a possessive bridges two capitalised words: "Rebecca's Tent Women's Shelter"
            if gap in ("'", "\u2019") and w == "s" and j + 1 < n \
                    and text[toks[j].end():toks[j + 1].start()] == " " \
                    and _is_cap(toks[j + 1].group()):
                run.append(toks[j + 1])
                j += 2
                continue
            break
        before = ""
        if i > 0 and prev_gap.strip() in ("", "&"):
            before = toks[i - 1].group().lower() if prev_gap == " " else prev_gap.strip()
        after = text[run[-1].end():run[-1].end() + 6]
        sentence_start = i == 0 or bool(_SENTENCE_END.search(text[:m.start()]))
        full_run = run
        if sentence_start and len(run) > 1 and _fold(m.group()) not in TITLES \
                and (_fold(m.group()) in _NEVER or _fold(m.group()) not in first_names()):
            before, run = _fold(m.group()), run[1:]
        # a title in quotes ("'Ken Heehaw'", "\u201cChanel\u201d") or a compound
        # ("Champaign/Urbana")
        quoted = prev_gap[-1:] in ("'", '"', "\u2018", "\u201c", "/")
        if not (particle or contraction or quoted):
            yield run, before, after, sentence_start and len(run) == len(full_run)
        i = j


class SpacyNameDetector:
    """First names from the PERSON entities of an installed spaCy model (optional extra).

    Parameters
    ----------
    model : str
        The name of an installed spaCy pipeline (``en_core_web_sm``, ...).  It is loaded
        once, from disk; nothing is downloaded.

    Raises
    ------
    FairboundError
        When spaCy or the model is not installed.

    Examples
    --------
    >>> SpacyNameDetector("en_core_web_sm").names_in("Mary Lee lives in Paris.")  # doctest: +SKIP
    ['Mary']
    """

    def __init__(self, model: str = "en_core_web_sm") -> None:
        try:
            import spacy
        except ImportError:
            raise FairboundError("detector: the spaCy detector needs spaCy and an installed "
                                 "model (pip install spacy, then the model's package); use "
                                 "the default list detector otherwise",
                                 param="detector") from None
        try:
            self.nlp = spacy.load(model)
        except OSError:
            raise FairboundError(f"model: no installed spaCy model {model!r}; install its "
                                 "package (models are never downloaded at run time)",
                                 param="model") from None
        self.model = model

    def names_in(self, text: str) -> list[str]:
        """The words :meth:`spans` marks, in order."""
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The first word of each PERSON entity (after any title)."""
        out = []
        for ent in self.nlp(text).ents:
            if ent.label_ != "PERSON":
                continue
            toks = [t for t in ent if t.is_alpha and t.text.lower() not in TITLES]
            if len(toks) >= 2 or (toks and toks[0].text.lower() not in common_surnames()):
                t = toks[0]
                out.append((t.idx, t.idx + len(t.text)))
        return out


def get_detector(detector) -> NameDetector:
    """Resolve a detector: ``None`` or ``'list'`` (the default), ``'spacy'``, or an object.

    Examples
    --------
    >>> get_detector(None)
    NameListDetector(37,589 names, context=True)
    """
    if detector is None or detector == "list":
        return NameListDetector()
    if detector == "spacy":
        return SpacyNameDetector()
    if isinstance(detector, NameDetector):
        return detector
    raise FairboundError(f"detector must be 'list', 'spacy' or an object with a "
                         f"spans(text) method; got {detector!r:.60}", param="detector")


__all__ = ["NameDetector", "NameListDetector", "SpacyNameDetector", "common_surnames",
           "first_name_counts", "first_names", "get_detector"]
