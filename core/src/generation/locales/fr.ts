import type { CopyFacts, DeliveryFact, Locale } from "./locale.js";

// French typography puts a non-breaking space before ":", "?", "!" and "%".
const S = "\u00a0";

const delivery = (d: DeliveryFact): string =>
  d.kind === "free" ? "La livraison est offerte" : d.kind === "paid" ? `La livraison coûte ${d.price}` : "Nous expédions rapidement";

const priceLine = (f: CopyFacts): string =>
  f.originalPrice ? `Maintenant ${f.price} au lieu de ${f.originalPrice}.` : `Seulement ${f.price}.`;

/** French phrases. */
export const fr: Locale = {
  code: "fr",
  headlines: {
    neutral: [(f) => `${f.title}${S}: pensé pour faire la différence`, (f) => `Découvrez ${f.title}`],
    luxury: [(f) => `${f.title}${S}: une qualité sans compromis`, (f) => `Offrez-vous ${f.title}`],
    budget: [(f) => `${f.title} à un prix imbattable`, (f) => `${f.title} pour seulement ${f.price}`],
    eco: [(f) => `${f.title}${S}: un choix qui respecte la planète`, (f) => `${f.title}, le choix durable`],
    urgency: [(f) => `${f.title}${S}: offre limitée, profitez-en vite`, (f) => `Dernière chance pour ${f.title}`],
    gift: [(f) => `${f.title}${S}: le cadeau dont on se souvient`, (f) => `Offrez ${f.title} et faites plaisir`],
  },
  subheadlines: {
    neutral: {
      physical: (f) => `${f.summary ?? "Tout ce que vous attendez, rien de superflu."} ${priceLine(f)}`,
      service: (f) => `${f.summary ?? "Un service pensé pour vos besoins."} ${priceLine(f)}`,
    },
    luxury: {
      physical: (f) => `Des matériaux haut de gamme et des finitions soignées, pour les plus exigeants. ${priceLine(f)}`,
      service: (f) => `Un service exclusif et attentionné, pour ceux qui visent l’excellence. ${priceLine(f)}`,
    },
    budget: {
      physical: (f) => `Une belle qualité sans se ruiner. ${priceLine(f)}`,
      service: (f) => `Un résultat professionnel à un prix juste. ${priceLine(f)}`,
    },
    eco: {
      physical: (f) => `Conçu pour durer, dans le respect des personnes et de la planète. ${priceLine(f)}`,
      service: (f) => `Un service responsable, à l’empreinte réduite. ${priceLine(f)}`,
    },
    urgency: {
      physical: (f) => `Stock limité et prix valable peu de temps. ${priceLine(f)}`,
      service: (f) => `Il ne reste que quelques créneaux à ce prix. ${priceLine(f)}`,
    },
    gift: {
      physical: (f) => `Un cadeau attentionné pour ceux qui comptent le plus. ${priceLine(f)}`,
      service: (f) => `Une expérience à offrir, pour toutes les occasions. ${priceLine(f)}`,
    },
  },
  customSubheadline: (f, angle) => `${f.title}${S}: ${angle}. ${priceLine(f)}`,
  ctaLabel: { physical: "Commander", service: "Réserver" },
  benefitsTitle: (f) => `Pourquoi choisir ${f.title}${S}?`,
  toneBenefit: {
    luxury: {
      physical: () => ({ title: "Qualité premium", text: "Des matériaux choisis avec soin et des finitions visibles dans chaque détail." }),
      service: () => ({ title: "Une expérience d’exception", text: "Une attention personnalisée à chaque étape, par des professionnels expérimentés." }),
    },
    budget: {
      physical: (f) => ({ title: "Le meilleur rapport qualité-prix", text: `Tout ce qu’il vous faut pour ${f.price}, sans frais cachés.` }),
      service: (f) => ({ title: "Un prix juste", text: `Un tarif clair de ${f.price}, sans mauvaise surprise.` }),
    },
    eco: {
      physical: () => ({ title: "Un choix responsable", text: "Conçu pour durer, pour acheter moins et gaspiller moins." }),
      service: () => ({ title: "Un impact réduit", text: "Nous travaillons dans le respect des personnes et de l’environnement." }),
    },
    urgency: {
      physical: () => ({ title: "Stock limité", text: "Offre valable dans la limite des stocks disponibles. Commandez dès aujourd’hui." }),
      service: () => ({ title: "Places limitées", text: "Les créneaux partent vite. Réservez dès aujourd’hui." }),
    },
    gift: {
      physical: () => ({ title: "Le cadeau idéal", text: "Un présent qui fait plaisir, pour un anniversaire, les fêtes ou sans raison." }),
      service: () => ({ title: "Un cadeau mémorable", text: "Offrez une expérience plutôt qu’un objet de plus." }),
    },
  },
  aboutBenefit: (f) => ({ title: `Ce que propose ${f.title}`, text: f.summary ?? f.title }),
  savingsBenefit: (f) => ({
    title: `Économisez ${f.savings}`,
    text: `Payez ${f.price} au lieu de ${f.originalPrice}, soit ${f.savingsPercent}${S}% de réduction.`,
  }),
  benefitPool: {
    physical: [
      () => ({ title: "Une qualité qui se sent", text: "Testé et vérifié avant chaque expédition." }),
      (f) => ({ title: "Livré chez vous", text: `${delivery(f.delivery)}, et vous suivez votre colis jusqu’à la réception.` }),
      () => ({ title: "Retours faciles", text: `Pas convaincu${S}? Renvoyez votre achat sous 30 jours.` }),
      () => ({ title: "Commande sécurisée", text: "Vos données sont protégées et servent uniquement à votre commande." }),
      () => ({ title: "Un service client à l’écoute", text: "Une vraie personne répond à vos questions, avant et après l’achat." }),
    ],
    service: [
      () => ({ title: "Des professionnels expérimentés", text: "Des experts qui tiennent au résultat." }),
      () => ({ title: "Réservation flexible", text: "Choisissez la date qui vous convient, nous confirmons rapidement." }),
      () => ({ title: "Votre satisfaction d’abord", text: "Nous vous écoutons et nous adaptons pour que le résultat vous plaise." }),
      () => ({ title: "Des prix transparents", text: "Vous connaissez le prix avant de réserver." }),
      () => ({ title: "Un suivi réactif", text: `Une question avant ou après votre rendez-vous${S}? Nous sommes là.` }),
    ],
  },
  galleryTitle: (f) => `${f.title} en images`,
  galleryAlt: (f, i) => `${f.title}, photo ${i}`,
  socialProofTitle: "Ce que disent nos clients",
  quotes: {
    physical: [
      (f) => `${f.title} correspond exactement à ce que je cherchais. Très bonne qualité.`,
      () => "Livraison rapide et emballage soigné. Je recommande.",
      () => "Excellent rapport qualité-prix. Je recommanderai sans hésiter.",
    ],
    service: [
      (f) => `${f.title} a dépassé mes attentes. Très professionnel.`,
      () => "Réservation simple et tout était à l’heure.",
      () => "À l’écoute, sympathique et efficace. Je réserverai de nouveau.",
    ],
  },
  people: [
    { author: "Camille D.", role: { physical: "Achat vérifié", service: "Client vérifié" } },
    { author: "Julien M.", role: { physical: "Achat vérifié", service: "Client vérifié" } },
    { author: "Sophie L.", role: { physical: "Cliente fidèle", service: "Cliente fidèle" } },
    { author: "Thomas B.", role: { physical: "Achat vérifié", service: "Client vérifié" } },
    { author: "Claire R.", role: { physical: "Cliente fidèle", service: "Cliente fidèle" } },
  ],
  faqTitle: "Questions fréquentes",
  faq: {
    physical: (f) => [
      { question: `Combien coûte la livraison${S}?`, answer: `${delivery(f.delivery)}. Les commandes arrivent généralement sous 2 à 5 jours ouvrés.` },
      { question: `Puis-je retourner mon achat${S}?`, answer: "Oui. Vous disposez de 30 jours pour retourner le produit dans son état d’origine et être remboursé intégralement." },
      { question: `Comment commander${S}?`, answer: "Remplissez le formulaire en bas de cette page. Nous vous contactons pour confirmer votre commande." },
      { question: `Quel est le prix${S}?`, answer: `${f.title} coûte ${f.price}.` },
    ],
    service: (f) => [
      { question: `Comment réserver${S}?`, answer: "Choisissez une date dans le formulaire ci-dessous. Nous confirmons votre réservation par e-mail." },
      { question: `Puis-je annuler ou déplacer mon rendez-vous${S}?`, answer: "Oui, sans frais jusqu’à 24 heures avant le rendez-vous." },
      { question: `Quel est le prix${S}?`, answer: `${f.title} coûte ${f.price}, sans frais cachés.` },
      { question: `Et si j’ai une demande particulière${S}?`, answer: "Indiquez-la dans le champ Remarques, nous nous adapterons." },
    ],
  },
  offerTitle: {
    neutral: "Notre offre",
    luxury: "Une offre exclusive",
    budget: "Notre meilleur prix",
    eco: "Une offre responsable",
    urgency: "Offre à durée limitée",
    gift: "Le cadeau idéal",
  },
  offerText: {
    physical: (f) => `${f.title} pour ${f.price}${f.originalPrice ? ` au lieu de ${f.originalPrice}` : ""}. ${delivery(f.delivery)}.`,
    service: (f) => `${f.title} pour ${f.price}${f.originalPrice ? ` au lieu de ${f.originalPrice}` : ""}. Réservez en quelques clics.`,
  },
  guarantee: {
    physical: "Satisfait ou remboursé pendant 30 jours",
    service: "Annulation gratuite jusqu’à 24 heures avant",
  },
  checkoutTitle: { physical: "Passer commande", service: "Réserver votre rendez-vous" },
  submitLabel: { physical: "Valider ma commande", service: "Confirmer ma réservation" },
  checkoutNote: {
    physical: `Aucun paiement maintenant${S}: nous vous contactons pour confirmer votre commande.`,
    service: `Aucun paiement maintenant${S}: nous confirmons votre réservation par e-mail.`,
  },
  fieldLabels: { name: "Nom complet", phone: "Téléphone", address: "Adresse", city: "Ville", email: "E-mail", date: "Date souhaitée", notes: "Remarques" },
  ui: {
    deliveryPrice: (p) => `Livraison${S}: ${p}`,
    freeDelivery: "Livraison offerte",
    save: (p) => `Économisez ${p}${S}%`,
    requiredHint: "Les champs marqués d’un * sont obligatoires.",
    requiredMark: "obligatoire",
    choose: "Choisir…",
    previewNote: `Aperçu${S}: le formulaire est désactivé tant que la page n’est pas déployée.`,
    previewBanner: "Aperçu",
    confirmationTitle: `Merci${S}!`,
    confirmationText: {
      physical: (t) => `Nous avons bien reçu votre commande pour ${t}. Nous vous contactons très vite pour la confirmer.`,
      service: (t) => `Nous avons bien reçu votre réservation pour ${t}. Nous vous la confirmons très vite.`,
    },
    yourDetails: "Vos coordonnées",
    back: "Retour à la page",
    notFoundTitle: "Page introuvable",
    notFoundText: "Cette page n’existe pas ou n’est plus disponible.",
  },
};
