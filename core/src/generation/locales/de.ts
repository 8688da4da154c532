import type { CopyFacts, DeliveryFact, Locale } from "./locale.js";

const delivery = (d: DeliveryFact): string =>
  d.kind === "free" ? "Der Versand ist kostenlos" : d.kind === "paid" ? `Der Versand kostet ${d.price}` : "Wir versenden schnell";

const priceLine = (f: CopyFacts): string =>
  f.originalPrice ? `Jetzt ${f.price} statt ${f.originalPrice}.` : `Nur ${f.price}.`;

/** German phrases (formal "Sie"). */
export const de: Locale = {
  code: "de",
  headlines: {
    neutral: [(f) => `${f.title} – gemacht, um zu überzeugen`, (f) => `Entdecken Sie ${f.title}`],
    luxury: [(f) => `${f.title} – Qualität ohne Kompromisse`, (f) => `Gönnen Sie sich ${f.title}`],
    budget: [(f) => `${f.title} zum unschlagbaren Preis`, (f) => `${f.title} für nur ${f.price}`],
    eco: [(f) => `${f.title} – eine Wahl, die den Planeten respektiert`, (f) => `${f.title}: die nachhaltige Wahl`],
    urgency: [(f) => `${f.title} – nur für kurze Zeit`, (f) => `Letzte Chance auf ${f.title}`],
    gift: [(f) => `${f.title} – das Geschenk, das in Erinnerung bleibt`, (f) => `Verschenken Sie ${f.title} und sorgen Sie für Freude`],
  },
  subheadlines: {
    neutral: {
      physical: (f) => `${f.summary ?? "Alles, was Sie erwarten, und nichts Überflüssiges."} ${priceLine(f)}`,
      service: (f) => `${f.summary ?? "Ein Service, der sich nach Ihnen richtet."} ${priceLine(f)}`,
    },
    luxury: {
      physical: (f) => `Hochwertige Materialien und sorgfältige Verarbeitung für höchste Ansprüche. ${priceLine(f)}`,
      service: (f) => `Ein exklusiver, aufmerksamer Service für alle, die Exzellenz erwarten. ${priceLine(f)}`,
    },
    budget: {
      physical: (f) => `Gute Qualität, ohne zu viel auszugeben. ${priceLine(f)}`,
      service: (f) => `Professionelle Ergebnisse zu einem fairen Preis. ${priceLine(f)}`,
    },
    eco: {
      physical: (f) => `Langlebig und mit Rücksicht auf Mensch und Umwelt hergestellt. ${priceLine(f)}`,
      service: (f) => `Ein verantwortungsvoller Service mit kleinem ökologischem Fußabdruck. ${priceLine(f)}`,
    },
    urgency: {
      physical: (f) => `Der Vorrat ist begrenzt und dieser Preis gilt nicht lange. ${priceLine(f)}`,
      service: (f) => `Zu diesem Preis sind nur noch wenige Termine frei. ${priceLine(f)}`,
    },
    gift: {
      physical: (f) => `Ein durchdachtes Geschenk für die Menschen, die Ihnen wichtig sind. ${priceLine(f)}`,
      service: (f) => `Ein Erlebnis zum Verschenken, für jeden Anlass. ${priceLine(f)}`,
    },
  },
  customSubheadline: (f, angle) => `${f.title}: ${angle}. ${priceLine(f)}`,
  ctaLabel: { physical: "Jetzt bestellen", service: "Jetzt buchen" },
  benefitsTitle: (f) => `Warum ${f.title}?`,
  toneBenefit: {
    luxury: {
      physical: () => ({ title: "Premium-Qualität", text: "Sorgfältig ausgewählte Materialien und eine Verarbeitung, die man in jedem Detail sieht." }),
      service: () => ({ title: "Ein außergewöhnliches Erlebnis", text: "Persönliche Betreuung bei jedem Schritt, durch erfahrene Profis." }),
    },
    budget: {
      physical: (f) => ({ title: "Bestes Preis-Leistungs-Verhältnis", text: `Alles, was Sie brauchen, für ${f.price} – ohne versteckte Kosten.` }),
      service: (f) => ({ title: "Faire Preise", text: `Ein klarer Preis von ${f.price}, ohne Überraschungen.` }),
    },
    eco: {
      physical: () => ({ title: "Eine verantwortungsvolle Wahl", text: "Für lange Haltbarkeit gemacht: weniger kaufen, weniger verschwenden." }),
      service: () => ({ title: "Geringe Belastung", text: "Wir arbeiten mit Respekt vor Mensch und Umwelt." }),
    },
    urgency: {
      physical: () => ({ title: "Begrenzter Vorrat", text: "Nur solange der Vorrat reicht. Bestellen Sie noch heute." }),
      service: () => ({ title: "Begrenzte Termine", text: "Die Termine sind schnell vergeben. Buchen Sie noch heute." }),
    },
    gift: {
      physical: () => ({ title: "Das perfekte Geschenk", text: "Ein Geschenk, das Freude macht – zum Geburtstag, zu den Feiertagen oder einfach so." }),
      service: () => ({ title: "Ein unvergessliches Geschenk", text: "Schenken Sie ein Erlebnis statt eines weiteren Gegenstands." }),
    },
  },
  aboutBenefit: (f) => ({ title: `Das bietet ${f.title}`, text: f.summary ?? f.title }),
  savingsBenefit: (f) => ({
    title: `Sparen Sie ${f.savings}`,
    text: `Zahlen Sie ${f.price} statt ${f.originalPrice} – das sind ${f.savingsPercent} % Rabatt.`,
  }),
  benefitPool: {
    physical: [
      () => ({ title: "Spürbare Qualität", text: "Vor jedem Versand geprüft und kontrolliert." }),
      (f) => ({ title: "Bis an Ihre Haustür", text: `${delivery(f.delivery)}, und wir halten Sie bis zur Zustellung auf dem Laufenden.` }),
      () => ({ title: "Einfache Rückgabe", text: "Nicht überzeugt? Senden Sie es innerhalb von 30 Tagen zurück." }),
      () => ({ title: "Sicher bestellen", text: "Ihre Daten sind geschützt und werden nur für Ihre Bestellung verwendet." }),
      () => ({ title: "Persönlicher Kundenservice", text: "Ein echter Mensch beantwortet Ihre Fragen, vor und nach dem Kauf." }),
    ],
    service: [
      () => ({ title: "Erfahrene Profis", text: "Fachleute, denen das Ergebnis am Herzen liegt." }),
      () => ({ title: "Flexible Buchung", text: "Wählen Sie den Termin, der Ihnen passt; wir bestätigen schnell." }),
      () => ({ title: "Ihre Zufriedenheit zuerst", text: "Wir hören zu, passen uns an und sorgen dafür, dass Sie zufrieden sind." }),
      () => ({ title: "Transparente Preise", text: "Sie kennen den Preis, bevor Sie buchen." }),
      () => ({ title: "Schnelle Hilfe", text: "Fragen vor oder nach Ihrem Termin? Wir sind für Sie da." }),
    ],
  },
  galleryTitle: (f) => `${f.title} in Bildern`,
  galleryAlt: (f, i) => `${f.title}, Bild ${i}`,
  socialProofTitle: "Das sagen unsere Kunden",
  quotes: {
    physical: [
      (f) => `${f.title} ist genau das, was ich gesucht habe. Sehr gute Qualität.`,
      () => "Schnelle Lieferung und sorgfältig verpackt. Klare Empfehlung.",
      () => "Hervorragendes Preis-Leistungs-Verhältnis. Ich habe direkt noch einmal bestellt.",
    ],
    service: [
      (f) => `${f.title} hat meine Erwartungen übertroffen. Sehr professionell.`,
      () => "Die Buchung war einfach und alles war pünktlich.",
      () => "Aufmerksam, freundlich und effizient. Ich buche wieder.",
    ],
  },
  people: [
    { author: "Jonas K.", role: { physical: "Verifizierter Käufer", service: "Verifizierter Kunde" } },
    { author: "Anna S.", role: { physical: "Verifizierte Käuferin", service: "Verifizierte Kundin" } },
    { author: "Lukas W.", role: { physical: "Stammkunde", service: "Stammkunde" } },
    { author: "Laura M.", role: { physical: "Verifizierte Käuferin", service: "Verifizierte Kundin" } },
    { author: "Felix B.", role: { physical: "Stammkunde", service: "Stammkunde" } },
  ],
  faqTitle: "Häufige Fragen",
  faq: {
    physical: (f) => [
      { question: "Was kostet der Versand?", answer: `${delivery(f.delivery)}. Bestellungen kommen in der Regel innerhalb von 2 bis 5 Werktagen an.` },
      { question: "Kann ich es zurückgeben?", answer: "Ja. Sie haben 30 Tage Zeit, das Produkt im Originalzustand zurückzusenden, und erhalten den vollen Betrag zurück." },
      { question: "Wie bestelle ich?", answer: "Füllen Sie das Formular unten auf dieser Seite aus. Wir melden uns, um Ihre Bestellung zu bestätigen." },
      { question: "Was kostet es?", answer: `${f.title} kostet ${f.price}.` },
    ],
    service: (f) => [
      { question: "Wie buche ich?", answer: "Wählen Sie im Formular unten einen Termin. Wir bestätigen Ihre Buchung per E-Mail." },
      { question: "Kann ich stornieren oder verschieben?", answer: "Ja, kostenlos bis 24 Stunden vor Ihrem Termin." },
      { question: "Was kostet es?", answer: `${f.title} kostet ${f.price}, ohne versteckte Gebühren.` },
      { question: "Und wenn ich besondere Wünsche habe?", answer: "Teilen Sie sie uns im Feld Anmerkungen mit, wir richten uns danach." },
    ],
  },
  offerTitle: {
    neutral: "Unser Angebot",
    luxury: "Ein exklusives Angebot",
    budget: "Unser bester Preis",
    eco: "Ein nachhaltiges Angebot",
    urgency: "Zeitlich begrenztes Angebot",
    gift: "Das ideale Geschenk",
  },
  offerText: {
    physical: (f) => `${f.title} für ${f.price}${f.originalPrice ? ` statt ${f.originalPrice}` : ""}. ${delivery(f.delivery)}.`,
    service: (f) => `${f.title} für ${f.price}${f.originalPrice ? ` statt ${f.originalPrice}` : ""}. Mit wenigen Klicks gebucht.`,
  },
  guarantee: {
    physical: "30 Tage Geld-zurück-Garantie",
    service: "Kostenlose Stornierung bis 24 Stunden vorher",
  },
  checkoutTitle: { physical: "Jetzt bestellen", service: "Termin buchen" },
  submitLabel: { physical: "Bestellung bestätigen", service: "Buchung bestätigen" },
  checkoutNote: {
    physical: "Keine Zahlung jetzt: Wir melden uns, um Ihre Bestellung zu bestätigen.",
    service: "Keine Zahlung jetzt: Wir bestätigen Ihre Buchung per E-Mail.",
  },
  fieldLabels: { name: "Vollständiger Name", phone: "Telefonnummer", address: "Adresse", city: "Ort", email: "E-Mail", date: "Wunschtermin", notes: "Anmerkungen" },
  ui: {
    deliveryPrice: (p) => `Versand: ${p}`,
    freeDelivery: "Kostenloser Versand",
    save: (p) => `${p} % sparen`,
    requiredHint: "Mit * markierte Felder sind Pflichtfelder.",
    requiredMark: "Pflichtfeld",
    choose: "Bitte wählen…",
    previewNote: "Vorschau: Das Formular ist deaktiviert, bis die Seite veröffentlicht ist.",
    previewBanner: "Vorschau",
    confirmationTitle: "Vielen Dank!",
    confirmationText: {
      physical: (t) => `Wir haben Ihre Bestellung für ${t} erhalten. Wir melden uns in Kürze, um sie zu bestätigen.`,
      service: (t) => `Wir haben Ihre Buchung für ${t} erhalten. Wir bestätigen sie in Kürze.`,
    },
    yourDetails: "Ihre Angaben",
    back: "Zurück zur Seite",
    notFoundTitle: "Seite nicht gefunden",
    notFoundText: "Diese Seite existiert nicht oder ist nicht mehr verfügbar.",
  },
};
